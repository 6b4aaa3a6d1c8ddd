/**
 * A write whose requesting workflow is gone (terminated, timed out) is undone: nobody will hear of what it created,
 * so the job is cancelled (the order stopped) rather than left running unwatched. Every write asks once it has its
 * result, whether its own activity sent it or a target's submitter did.
 */
import { activityInfo, CancelledFailure, Context, log } from '@temporalio/activity';
import { Conflict, type ServiceClient } from '../api/index.js';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { CANCEL_SEND, requestIdOf, type Requester } from '../contract/submitter.js';
import { queueAt, requester } from './through-submitter.js';

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
 * `requester`: the workflow that asked a submitter for it; absent, this activity's own. A failed undo is thrown: a
 * submitter's batch then retries it (its retry finds what it created); this workflow's own activity has no retry left
 * (its workflow is gone), so its `undo` hands a failed cancel to the target's submitter (cancelOwnUnwatched).
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
  await undo(result);
  const message = 'the workflow that asked for this write is gone; what it created is undone';
  if (!requester) throw new CancelledFailure(message);
  throw ApplicationFailure.create({ type: 'RequesterGone', message, nonRetryable: true });
}

/** A job this activity created for its own workflow, and the submitter of its target (`lock`, on `submitterQueue`). */
export interface OwnUndo {
  profile: string;
  jobId: string;
  lock: string;
  submitterQueue?: string | undefined;
}

/**
 * Cancels job `job.jobId`, which this activity created for its own workflow, now gone. A cancel that fails is handed
 * to the target's submitter, which sends it as it sends writes (`cancelJob`), its batch retried through an outage of
 * `outageToleranceMs` on any worker: this activity has no retry left, and its worker may not live to try again. Nobody
 * asks for its answer. Until 2026-11-27 the cancel was tried again in this worker's process only.
 */
export async function cancelOwnUnwatched(
  client: ServiceClient,
  job: OwnUndo,
  outageToleranceMs: number,
  signal: AbortSignal,
): Promise<void> {
  const { profile, jobId, lock, submitterQueue } = job;
  try {
    return await cancelUnwatched(client, jobId, signal);
  } catch {
    // Logged there; handed over below.
  }
  const me = requester();
  await queueAt(
    Context.current().client,
    { id: lock, taskQueue: submitterQueue ?? activityInfo().taskQueue },
    {
      id: `${requestIdOf(me)}#cancel`,
      activity: CANCEL_SEND,
      input: { profile, jobId, requester: me },
      outageToleranceMs,
      askAgainUntil: Date.now(),
    },
  ).catch((err: unknown) => {
    log.error('could not hand the cancel of a job nobody watches to its submitter; the job may keep running', {
      jobId,
      error: err instanceof Error ? err.message : String(err),
    });
    throw err;
  });
  log.warn("handed the cancel of a job nobody watches to its target's submitter", { jobId, submitterId: lock });
}

/**
 * Cancels a job its workflow will never hear of; one that already ended (409) is left as it is. Any other failure is
 * thrown: a submitter's batch then ends its attempt, and its retry finds the job again and cancels it; an activity of
 * the gone workflow's own hands the cancel to the target's submitter (cancelOwnUnwatched).
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
