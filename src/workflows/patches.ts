/**
 * The workflows' patches, and the baseline that stands for all of them.
 *
 * Each `patched()` call that records a marker costs a workflow 2 history events (the marker, and the
 * `TemporalChangeVersion` upsert Core adds to it). A workflow started by this code records one marker, the baseline,
 * at its first check, and every later check reads it: code of this version takes every patched path. A workflow
 * started before the baseline has no such marker, so its checks replay from the markers it has, as they did.
 *
 * Rules: the first check of a workflow comes before anything else it records (see input.ts). A patch added after a
 * baseline gets a new baseline: workflows started before it carry the earlier baseline's marker, which stands only for
 * the patches listed in EARLIER_BASELINES, so they replay the path they took. (A patch may also be checked with
 * `patched()` itself, as orderStopUnconfirmed is, where it costs its 2 events only on a rare path.)
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
  /** The per-target lock taken by the submitting activity, not a child workflow (src/activities/target-lock.ts). */
  lockInActivity: 'lock-in-activity-v1',
  /** The pipeline's profiling wait submits the test run itself (src/activities/chained.ts). */
  testRunFromProfilingWait: 'test-run-from-profiling-wait-v1',
  /**
   * A wait that may have submitted the next job and ended unanswered has that job found and cancelled, and one the
   * workflow's cancel stopped ends the workflow cancelled (chained.ts). Added after the baseline, so checked with
   * `patched()` itself, and only on that path.
   */
  unansweredSubmission: 'unanswered-submission-v1',
  /**
   * With `cancelRemoteJob: false`, such a wait's job is still looked up (which releases its lock) and recorded as left
   * running, and one the workflow's cancel stopped ends the workflow cancelled (chained.ts). Checked with `patched()`
   * itself, only on that path.
   */
  unansweredLeftRunning: 'unanswered-left-running-v1',
  /** The heartbeating wait submits its own job (submit-and-wait.ts, src/activities/chained.ts). */
  submissionInWait: 'submission-in-wait-v1',
  /**
   * An approval binds the preview's content: previews whose items are stored by reference are compared by the stored
   * items' hash, not by their counts alone (promotion.ts). Checked with `patched()` itself, and only where two
   * previews with equal counts differ in content.
   */
  previewContentBound: 'preview-content-bound-v1',
  /**
   * A workflow cancelled while a wait that answers its cancel runs cancels the job it knows at once, not once the wait
   * has heard of the cancel (prompt-cancel.ts). Checked with `patched()` itself, and only on that path.
   */
  promptCancel: 'prompt-cancel-v1',
  /**
   * A workflow cancelled while its submission waits for a held target (the submission activity's path) stops waiting
   * and ends cancelled, creating nothing (submission.ts). Checked with `patched()` itself, and only on that path.
   */
  cancellableLockWait: 'cancellable-lock-wait-v1',
  /**
   * A job's cancel that the service refuses with credentials it refused for good (AuthenticationFailed) is not asked
   * again for cancelTimeoutMs (remote-cancel.ts). Checked with `patched()` itself, and only on that path.
   */
  deadCredentialsEndCancel: 'dead-credentials-end-cancel-v1',
} as const;
type Patch = keyof typeof PATCHES;

/** The marker of workflows that take every patched path of PATCHES. */
export const BASELINE_PATCH = 'baseline-2027-02';

/** Earlier baselines, and the patches each stands for: each covers the one before it and what was added since. */
const BASELINE_2026_11: Patch[] = [
  'submissionLock',
  'inputCheckedByWorker',
  'generationOutlook',
  'rePreviewAfterApproval',
];
const BASELINE_2026_12: Patch[] = [...BASELINE_2026_11, 'lockInActivity'];
const BASELINE_2027_01: Patch[] = [...BASELINE_2026_12, 'testRunFromProfilingWait'];
const EARLIER_BASELINES: ReadonlyArray<[string, ReadonlySet<Patch>]> = [
  ['baseline-2027-01', new Set(BASELINE_2027_01)],
  ['baseline-2026-12', new Set(BASELINE_2026_12)],
  ['baseline-2026-11', new Set(BASELINE_2026_11)],
];

/** Whether this workflow takes the patched path of `patch`: since a baseline that covers it, or its own marker. */
export function applies(patch: Patch): boolean {
  if (patched(BASELINE_PATCH)) return true;
  for (const [marker, covers] of EARLIER_BASELINES) if (covers.has(patch) && patched(marker)) return true;
  return patched(PATCHES[patch]);
}
