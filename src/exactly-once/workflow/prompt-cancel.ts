/**
 * A workflow cancel that reaches the job at once. A wait whose answer may carry a job (one that submits its own job:
 * src/exactly-once/own-job.ts) is cancelled with WAIT_CANCELLATION_COMPLETED, so the workflow hears
 * the wait's answer only once the wait hears of the cancel, at its next heartbeat: seconds, during which a short job
 * could complete. Meanwhile the job the workflow knows (from the wait's first report, which names it within a second) is
 * cancelled here, without waiting; the wait's ending then finds that cancel made (cancelRemoteJob cancels a job once).
 * A wait that answers with its job ended (it completed before the cancel reached it) answers once that cancel has; a
 * cancel still trying to reach the service then stops, since the wait saw the job end (`seenTerminal`).
 */
import { CancellationScope, CancelledFailure, condition } from '@temporalio/workflow';
import type { JobOptions, JobSnapshot, JobSubmitted } from '../../contract/index.js';
import { LEFT_ON_CANCEL } from '../messages.js';
import { cancelRemoteJob, cancelStarted, seenTerminal } from './remote-cancel.js';
import type { Tracker } from '../../workflows/shared.js';

/**
 * Runs `wait`; if the workflow is cancelled meanwhile, cancels the job `jobOf` names as soon as it names one. A wait
 * that submits its own job and has named none yet has its request settled at once (`settle`, as an ask's is:
 * submission.ts): a job its send created is cancelled at once; none sent (withdrawn) ends the workflow cancelled
 * without waiting for the wait. With `cancelRemoteJob` false, the job is left alone and the wait is not waited for
 * (leavingRunning).
 */
export async function cancellingPromptly<T extends { job: JobSnapshot }>(
  t: Tracker,
  opts: JobOptions,
  jobOf: () => string | undefined,
  wait: () => Promise<T>,
  settle?: () => Promise<JobSubmitted | null>,
): Promise<T> {
  if (!opts.cancelRemoteJob) return leavingRunning(jobOf, wait);
  let ended = false;
  /** What the settle found: its job's id, null when nothing was sent, undefined until it answers. */
  let settled: string | null | undefined;
  let settling: Promise<unknown> | undefined; // waited for however the wait ends, so that it is not left in flight
  let unsent: (cancel: unknown) => void = () => undefined;
  const nothingSent = new Promise<never>((_, reject) => (unsent = reject));
  CancellationScope.current()
    .cancelRequested.catch((cancel: unknown) =>
      CancellationScope.nonCancellable(async () => {
        if (settle && jobOf() === undefined)
          settling = settle().then(
            (job) => (settled = job?.jobId ?? null),
            () => undefined, // the wait's ending tells, as without a settle
          );
        await condition(() => ended || jobOf() !== undefined || settled !== undefined);
        const jobId = jobOf() ?? settled;
        if (ended) return;
        if (jobId === null) return unsent(cancel);
        if (jobId !== undefined) await cancelRemoteJob(t, opts, jobId, 'workflow_cancelled');
      }),
    )
    .catch(() => undefined); // its outcome is the wait's ending's to report: that ending awaits the same cancel
  try {
    const result = await Promise.race([wait(), nothingSent]);
    // The job ended before the wait heard of the cancel (it answers with the job ended): a cancel of it already made
    // is seen through, so the workflow neither ends with that cancel in flight nor leaves it unrecorded. The wait's
    // answer is what the cancel waits to see: one still trying to reach the service (an outage) stops at once and
    // records the job as the wait saw it, not an unconfirmed cancel after cancelTimeoutMs.
    const jobId = jobOf() ?? settled ?? undefined;
    const cancelling = jobId === undefined ? undefined : cancelStarted(t, jobId);
    if (cancelling) {
      if (result.job.id === jobId) seenTerminal(t, result.job);
      await cancelling;
    }
    return result;
  } finally {
    ended = true;
    await settling;
  }
}

/**
 * With `cancelRemoteJob` false, a cancel ends the workflow at once, rather than when the wait hears of it at its next
 * heartbeat: a job that completed meanwhile would otherwise end the cancelled workflow completed. The wait is not
 * cancelled (a cancel of it that met its completion in the activation that ends the workflow was refused by the
 * server, ACTIVITY_UNKNOWN, a run that did not recover): left, it ends at its next heartbeat once the workflow has
 * closed. One that has named no job yet sent its request with `leaveOnCancel`: not sent once the workflow is
 * cancelled, and what a send in flight creates is left running by its submitter.
 */
async function leavingRunning<T>(jobOf: () => string | undefined, wait: () => Promise<T>): Promise<T> {
  const scope = new CancellationScope({ cancellable: false });
  let ended = false;
  const left = CancellationScope.current().cancelRequested.catch((err: unknown) => {
    if (ended || jobOf() !== undefined) throw err;
    throw new CancelledFailure(LEFT_ON_CANCEL, [], err instanceof Error ? err : undefined);
  });
  try {
    const result = await Promise.race([scope.run(wait), left]);
    // Answered in the activation that brought the cancel: the job ended by itself, and the workflow is still cancelled.
    if (CancellationScope.current().consideredCancelled)
      throw new CancelledFailure('the workflow was cancelled; its job was left alone (cancelRemoteJob is false)');
    return result;
  } finally {
    ended = true;
  }
}

/** Whether this workflow has started cancelling job `jobId` (a wait that then saw it canceled saw our own cancel). */
export const cancelledByUs = (t: Tracker, jobId: string): boolean => cancelStarted(t, jobId) !== undefined;
