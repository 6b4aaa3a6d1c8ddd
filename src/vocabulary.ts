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

/**
 * Statuses TestGen 5.134 adds to the spec's nine: a queue before `pending`, and pausing (a `paused` job leaves that
 * status only when someone resumes it). Like every non-terminal status, they mean "keep waiting".
 */
export const TESTGEN_EXTRA_JOB_STATUSES = ['queued', 'pause_requested', 'paused', 'resume_requested'] as const;

/** Every job status a known deployment reports; others may appear and are treated as in progress. */
export const KNOWN_JOB_STATUSES = [...JOB_STATUSES, ...TESTGEN_EXTRA_JOB_STATUSES] as const;

/** Only these job statuses are terminal; every other one, known or not, means "keep waiting". */
export const TERMINAL_JOB_STATUSES = ['completed', 'error', 'canceled'] as const;
export type TerminalJobStatus = (typeof TERMINAL_JOB_STATUSES)[number];

export function isTerminalJobStatus(status: string): status is TerminalJobStatus {
  return (TERMINAL_JOB_STATUSES as readonly string[]).includes(status);
}

/** Terminal order-run statuses of the deployed orders API (PLANNED_SERVING and ACTIVE_SERVING are in progress). */
export const TERMINAL_ORDER_RUN_STATUSES = [
  'COMPLETED_SERVING',
  'STOPPED_SERVING',
  'SERVING_ERROR',
  'SERVING_RERAN',
] as const;

export function isTerminalOrderRunStatus(status: string): boolean {
  return (TERMINAL_ORDER_RUN_STATUSES as readonly string[]).includes(status);
}

/**
 * Whether an order run completed: only `COMPLETED_SERVING`; a stopped, failed or re-run one did not. The one rule that
 * fails a pipeline's order (`OrderFailed`) and sets `dataops order --wait-for-run`'s exit code.
 */
export function isCompletedOrderRunStatus(status: string): boolean {
  return status === 'COMPLETED_SERVING';
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
/**
 * Import item reasons: the spec's reference table, and the three TestGen 5.134 adds (`managed_test_type`: a type
 * that cannot be imported as new; `invalid_column`: a column not in the latest profile; `missing_required_field`).
 */
export const IMPORT_REASONS = [
  'no_match',
  'matched',
  'policy',
  'locked',
  'invalid_test_type',
  'managed_test_type',
  'invalid_table',
  'invalid_column',
  'missing_external_id',
  'missing_required_field',
  'absent',
] as const;

/**
 * How a deployment reports `result.score`: TestGen 5.134 sends a fraction from 0 to 1 (0.987); other deployments a
 * percentage. Our contract always says `scorePercent` (0 to 100); the worker converts by the configured scale.
 */
export const SCORE_SCALES = ['fraction', 'percent'] as const;
export type ScoreScale = (typeof SCORE_SCALES)[number];

/** A deployment's score in percent (0 to 100, two decimals); null when the deployment has none (not yet rolled up). */
export function scorePercent(score: number | null | undefined, scale: ScoreScale): number | null {
  if (score === null || score === undefined || !Number.isFinite(score)) return null;
  return Math.round((scale === 'fraction' ? score * 100 : score) * 100) / 100;
}
