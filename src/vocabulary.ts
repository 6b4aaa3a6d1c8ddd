/**
 * The service's own words, defined once: job and order-run statuses, the import's modes and policies, export
 * origins, and import actions and reasons. It imports nothing, so every layer may import it: the client
 * (`src/api/`) and the contract (`src/contract/`) build their zod enums from these lists. The simulator plays the
 * service and keeps its own copies; `test/contract/vocabulary.test.ts` pins them equal.
 */

/** Job statuses of spec section 3. */
export const JOB_STATUSES = [
  'pending',
  'claimed',
  'running',
  'completed',
  'error',
  'cancel_requested',
  'canceled',
  'interrupt_requested',
  'interrupted',
] as const;

/** Only these job statuses are terminal; every other one, known or not, means "keep waiting". */
export const TERMINAL_JOB_STATUSES = ['completed', 'error', 'canceled'] as const;
export type TerminalJobStatus = (typeof TERMINAL_JOB_STATUSES)[number];

export function isTerminalJobStatus(status: string): status is TerminalJobStatus {
  return (TERMINAL_JOB_STATUSES as readonly string[]).includes(status);
}

/** Order-run statuses of the deployed orders API; the last four are terminal. */
export const ORDER_RUN_STATUSES = [
  'PLANNED_SERVING',
  'ACTIVE_SERVING',
  'COMPLETED_SERVING',
  'STOPPED_SERVING',
  'SERVING_ERROR',
  'SERVING_RERAN',
] as const;
export const TERMINAL_ORDER_RUN_STATUSES = [
  'COMPLETED_SERVING',
  'STOPPED_SERVING',
  'SERVING_ERROR',
  'SERVING_RERAN',
] as const;

export function isTerminalOrderRunStatus(status: string): boolean {
  return (TERMINAL_ORDER_RUN_STATUSES as readonly string[]).includes(status);
}

/** Import `config.mode` (spec section 4.6). */
export const IMPORT_MODES = ['preview', 'apply', 'apply_strict'] as const;
/** Import `config.on_match`. */
export const ON_MATCH = ['overwrite_all', 'overwrite_unlocked', 'skip'] as const;
/** Import `config.on_new`. */
export const ON_NEW = ['create', 'create_and_lock', 'skip'] as const;
/** Import `config.on_absence`. */
export const ON_ABSENCE = ['do_nothing', 'delete_all', 'delete_unlocked'] as const;
/** Export `origin` filter. */
export const EXPORT_ORIGINS = ['manual', 'auto', 'both'] as const;

/** Import item actions. */
export const IMPORT_ACTIONS = ['create', 'update', 'skip', 'delete'] as const;
/** Import item reasons of the spec's reference table. */
export const IMPORT_REASONS = [
  'no_match',
  'matched',
  'policy',
  'locked',
  'invalid_test_type',
  'invalid_table',
  'missing_external_id',
  'absent',
] as const;
