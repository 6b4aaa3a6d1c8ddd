/** The import policy presets, by name: the spec's common configurations. Plain data: the workflows read it without loading the schemas. */
export const PRESETS = {
  upsert: { on_match: 'overwrite_unlocked', on_new: 'create', on_absence: 'do_nothing' },
  promotion: { on_match: 'overwrite_unlocked', on_new: 'create_and_lock', on_absence: 'do_nothing' },
  bulk_calibration: { on_match: 'overwrite_unlocked', on_new: 'skip', on_absence: 'do_nothing' },
  insert_only: { on_match: 'skip', on_new: 'create', on_absence: 'do_nothing' },
  clone_or_sync: { on_match: 'overwrite_all', on_new: 'create', on_absence: 'delete_all' },
} as const;
