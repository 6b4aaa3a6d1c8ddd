/**
 * The workflows' patches, and the baseline that stands for all of them.
 *
 * Each `patched()` call that records a marker costs a workflow 2 history events (the marker, and the
 * `TemporalChangeVersion` upsert Core adds to it). A workflow started by this code records one marker, the baseline,
 * at its first check, and every later check reads it: code of this version takes every patched path. A workflow
 * started before the baseline has no such marker, so its checks replay from the markers it has, as they did.
 *
 * Rules: the first check of a workflow comes before anything else it records (see input.ts); the baseline's name
 * changes only when old markers are retired. A patch added after the baseline is checked with `patched()` itself,
 * never with `applies()`: workflows started before it carry the baseline marker too, and would replay its new path.
 */
import { patched } from '@temporalio/workflow';

export const PATCHES = {
  /** Submissions and order creations under the per-target lock (submission.ts). */
  submissionLock: 'submission-lock-v1',
  /** The input checked by the worker's local activity rather than in the sandbox (input.ts). */
  inputCheckedByWorker: 'input-checked-by-worker',
  /** The generation outlook read before looking for a generation job (generation.ts). */
  generationOutlook: 'generation-outlook-v1',
  /** The promotion previews again after an approval (promotion.ts). */
  rePreviewAfterApproval: 're-preview-after-approval-v1',
  /**
   * An order stop that failed is recorded, and a cancelled workflow then fails RemoteCancelUnconfirmed (orders.ts).
   * Added after the baseline, so checked with `patched()` itself, and only where a stop failed.
   */
  orderStopUnconfirmed: 'order-stop-unconfirmed-v1',
} as const;

/** The marker of workflows that take every patched path of PATCHES. */
export const BASELINE_PATCH = 'baseline-2026-11';

/** Whether this workflow takes the patched path of `patch`: since the baseline, or since that patch's own marker. */
export function applies(patch: keyof typeof PATCHES): boolean {
  return patched(BASELINE_PATCH) || patched(PATCHES[patch]);
}
