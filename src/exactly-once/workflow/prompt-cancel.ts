/**
 * A workflow cancel that reaches the job at once. A job's heartbeating wait is cancelled with
 * WAIT_CANCELLATION_COMPLETED, so the workflow hears the wait's answer only once the wait hears of the cancel, at its
 * next heartbeat: seconds, during which a short job could complete, and the workflow does not end with the wait in
 * flight. Meanwhile the job is cancelled here, without waiting; the wait's ending then finds that cancel made
 * (cancelRemoteJob cancels a job once). A wait that answers with its job ended (it completed before the cancel reached
 * it) answers once that cancel has; a cancel still trying to reach the service then stops, since the wait saw the job
 * end (`seenTerminal`).
 */
import { CancellationScope } from '@temporalio/workflow';
import type { JobOptions, JobSnapshot } from '../../contract/index.js';
import { cancelRemoteJob, cancelStarted, seenTerminal } from './remote-cancel.js';
import type { Tracker } from '../../workflows/shared.js';

/** Runs `wait`, the wait of job `jobId`; if the workflow is cancelled meanwhile, cancels the job at once. */
export async function cancellingPromptly<T extends { job: JobSnapshot }>(
  t: Tracker,
  opts: JobOptions,
  jobId: string,
  wait: () => Promise<T>,
): Promise<T> {
  let ended = false;
  CancellationScope.current()
    .cancelRequested.catch(() =>
      CancellationScope.nonCancellable(async () => {
        if (!ended) await cancelRemoteJob(t, opts, jobId, 'workflow_cancelled');
      }),
    )
    .catch(() => undefined); // its outcome is the wait's ending's to report: that ending awaits the same cancel
  try {
    const result = await wait();
    // The job ended before the wait heard of the cancel (it answers with the job ended): a cancel of it already made
    // is seen through, so the workflow neither ends with that cancel in flight nor leaves it unrecorded. The wait's
    // answer is what the cancel waits to see: one still trying to reach the service (an outage) stops at once and
    // records the job as the wait saw it, not an unconfirmed cancel after cancelTimeoutMs.
    const cancelling = cancelStarted(t, jobId);
    if (cancelling) {
      if (result.job.id === jobId) seenTerminal(t, result.job);
      await cancelling;
    }
    return result;
  } finally {
    ended = true;
  }
}

/** Whether this workflow has started cancelling job `jobId` (a wait that then saw it canceled saw our own cancel). */
export const cancelledByUs = (t: Tracker, jobId: string): boolean => cancelStarted(t, jobId) !== undefined;
