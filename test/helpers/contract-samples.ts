/**
 * Contract values as a caller receives them, and the same values as a later version could send them: with a field
 * added at the top and inside nested objects. The contract tests check both go through every caller's schema.
 */
import type { PromotionPreview } from '../../src/contract/promotion.js';

/** A promotion's preview, the `preview` query's answer (PromotionPreview): nested objects, a record, a list. */
export const PREVIEW = {
  summary: { created: 2, updated: 1, skipped: 1, deleted: 0 },
  definitions: 4,
  counts: { 'create/new': 2, 'update/matched': 1, 'skip/locked': 1 },
  items: [{ action: 'skip', reason: 'locked', tds: [{ idx: 3, target_id: 'td-9' }] }],
  itemsRef: null,
  reconciled: false,
  previewId: 'preview-1',
  export: { file: { ref: 'local:sha256-ab.json.gz', sha256: 'ab'.repeat(32), bytes: 1_234 }, definitions: 4 },
  config: { on_match: 'overwrite_unlocked', on_new: 'create', on_absence: 'do_nothing', mode: 'preview' },
  diff: ['create/new: 2', 'update/matched: 1', 'skip/locked: 1'],
};

/** `value` as a later version could send it: `addedLater` at the top, in `summary` and in each item's `tds`. */
export function withAddedFields(value: PromotionPreview) {
  return {
    ...value,
    addedLater: { note: 'a field of a later version' },
    summary: { ...value.summary, addedLater: 1 },
    items: value.items?.map((item) => ({ ...item, tds: item.tds.map((td) => ({ ...td, addedLater: true })) })) ?? null,
  };
}
