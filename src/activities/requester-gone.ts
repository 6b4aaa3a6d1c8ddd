/**
 * A write whose requesting workflow is gone (terminated, timed out) is undone: nobody will hear of what it created,
 * so the job is cancelled (the order stopped) rather than left running unwatched. Every write asks once it has its
 * result, whether its own activity sent it or a target's submitter did.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { activityInfo, CancelledFailure, Context, log } from '@temporalio/activity';
import { Conflict, ServiceError, type ServiceClient } from '../api/index.js';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import type { Requester } from '../contract/submitter.js';

/** Whether workflow run `who` is gone (no longer running): nobody will hear of what was created for it. */
async function gone(who: { workflowId: string; runId: string }): Promise<boolean> {
  try {
    const d = await Context.current().client.workflow.getHandle(who.workflowId, who.runId).describe();
    return d.status.name !== 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return true;
    throw err;
  }
}

/**
 * `result`, unless the workflow it was created for is gone: then it is undone with `undo` and this activity ends:
 * cancelled when it is that workflow's own, else `RequesterGone` (a submitter's, not retried; nobody hears of it).
 * `requester`: the workflow that asked a submitter for it; absent, this activity's own.
 */
export async function undoneIfGone<T>(
  result: T,
  undo: (result: T) => Promise<void>,
  requester?: Requester,
): Promise<T> {
  const own = activityInfo().workflowExecution;
  const who = requester ?? { workflowId: own?.workflowId ?? '-', runId: own?.runId ?? '-' };
  if (!(await gone(who))) return result;
  log.warn('the workflow that asked for this is gone; undoing it', { workflowId: who.workflowId });
  // A submitter's batch retries a failed undo (its retry finds what it created); this workflow's own activity has no
  // retry left (its workflow is gone): it fails, and the undo is tried again behind it.
  await undo(result).catch((err: unknown) => {
    if (!requester) undoAgain(() => undo(result), err);
    throw err;
  });
  const message = 'the workflow that asked for this write is gone; what it created was undone';
  if (!requester) throw new CancelledFailure(message);
  throw ApplicationFailure.create({ type: 'RequesterGone', message, nonRetryable: true });
}

/** How long what a gone workflow's own activity created is tried again to be undone (no one else will). */
const UNDO_FOR_MS = 10 * 60_000;

/**
 * Tries `undo` again after `failure`, while it fails in a way a retry may mend (1 s, doubling up to 30 s), for
 * UNDO_FOR_MS at most, in this worker process but outside the activity, which has ended: its timers hold neither the
 * worker's shutdown nor the process's exit (a process that exits first leaves the job, as logged). Until 2026-11-27
 * one failed try left the job running, unwatched.
 */
function undoAgain(undo: () => Promise<void>, failure: unknown): void {
  const logger = Context.current().log;
  void (async () => {
    const until = Date.now() + UNDO_FOR_MS;
    let err = failure;
    for (let tries = 0; err instanceof ServiceError && err.retryable; tries++) {
      const wait = Math.min(30_000, 1_000 * 2 ** tries);
      if (Date.now() + wait > until) break;
      await delay(wait, undefined, { ref: false });
      try {
        return await undo();
      } catch (e) {
        err = e;
      }
    }
    logger.error('gave up undoing what was created for a workflow that is gone', {
      error: err instanceof Error ? err.message : String(err),
    });
  })();
}

/**
 * Cancels a job its workflow will never hear of; one that already ended (409) is left as it is. Any other failure is
 * thrown: a submitter's batch then ends its attempt, and its retry finds the job again and cancels it; for an
 * activity of the gone workflow's own, the cancel is tried again behind it (undoneIfGone).
 */
export async function cancelUnwatched(client: ServiceClient, jobId: string, signal: AbortSignal): Promise<void> {
  try {
    await client.jobs.cancel(jobId, { signal });
  } catch (err) {
    if (err instanceof Conflict) return;
    log.warn('could not cancel a job nobody watches yet', { jobId, error: (err as Error).message });
    throw err;
  }
}

/**
 * The signal a write sends and settles with: the activity's cancellation, except the one that says its workflow is
 * gone. That send still finishes, so what it created is known and undone, not left running unwatched.
 * `throughCancel`: nor the workflow's cancel (the caller then waits for the answer and cancels what it created).
 */
export function sendSignal(throughCancel = false): AbortSignal {
  const context = Context.current();
  const controller = new AbortController();
  const abort = () => {
    const details = context.cancellationDetails;
    if (details?.notFound || (throughCancel && details?.cancelRequested)) return;
    controller.abort(context.cancellationSignal.reason);
  };
  if (context.cancellationSignal.aborted) abort();
  else context.cancellationSignal.addEventListener('abort', abort, { once: true });
  return controller.signal;
}

/**
 * Which of these requesters may still ask their submitter again (src/workflows/submitter.ts): their workflow runs and
 * the requesting activity is pending (it may retry). Read by a submitter with nothing left to send, to know which
 * answers it must keep.
 */
export async function stillAsking(requesters: Requester[]): Promise<boolean[]> {
  const { client } = Context.current();
  return Promise.all(
    requesters.map(async ({ workflowId, runId, activityId }) => {
      try {
        const d = await client.workflow.getHandle(workflowId, runId).describe();
        return d.status.name === 'RUNNING' && (d.raw.pendingActivities ?? []).some((a) => a.activityId === activityId);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return false;
        throw err;
      }
    }),
  );
}
