/**
 * A write whose requesting workflow is gone (terminated, timed out) is undone: nobody will hear of what it created,
 * so the job is cancelled (the order stopped) rather than left running unwatched. Every write asks once it has its
 * result, whether its own activity sent it or a target's submitter did.
 */
import { activityInfo, CancelledFailure, Context, log } from '@temporalio/activity';
import { Conflict, type ServiceClient } from '../api/index.js';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import type { Requester } from './messages.js';
import { beatingWhile } from '../activities/heartbeats.js';
import { NAME_PREFIX } from '../contract/names.js';
import type { Activities } from '../activities/index.js';

/** The activity that settles an ask's request (through-submitter.ts), as registered. */
const SETTLE = NAME_PREFIX + ('settleAsk' satisfies keyof Activities);

/** Workflow run `who`'s state: gone (no longer running, `status` says how it ended), or cancel requested. */
async function stateOf(who: { workflowId: string; runId: string }) {
  try {
    const d = await beatingWhile(Context.current().client.workflow.getHandle(who.workflowId, who.runId).describe());
    const cancelRequested =
      (d.raw as Partial<typeof d.raw> | undefined)?.workflowExtendedInfo?.cancelRequested === true;
    return { gone: d.status.name !== 'RUNNING', status: d.status.name, cancelRequested };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { gone: true, status: 'NOT_FOUND', cancelRequested: false };
    throw err;
  }
}

/** What a request ends with, unsent, when its workflow was cancelled or is gone before its turn. */
export const CANCELLED_UNSENT = 'RequesterCancelled';

/**
 * Throws CANCELLED_UNSENT when `requester`'s workflow is cancelled (its cancel requested: its settle may not have
 * withdrawn the request yet) or gone: its request is not sent. Asked before each send is recorded (send-in-turn.ts).
 * `throughCancel`: only when it is gone (a write its workflow makes whatever a cancel says: an approved apply).
 */
export async function unlessCancelled(requester: Requester | undefined, throughCancel = false): Promise<void> {
  if (!requester) return;
  const state = await stateOf(requester);
  if (!state.gone && (throughCancel || !state.cancelRequested)) return;
  throw ApplicationFailure.create({
    type: CANCELLED_UNSENT,
    message: `not sent: its workflow was ${state.gone ? state.status.toLowerCase() : 'cancelled'} before its turn`,
    nonRetryable: true,
  });
}

/**
 * Whether `who`'s workflow still wants its request: running, its cancel not requested. A request found unknown to
 * its submitter is queued again only then: its workflow's cancel may have withdrawn it before its ask's retry.
 */
export async function stillWanted(who: { workflowId: string; runId: string }): Promise<boolean> {
  const state = await stateOf(who);
  return !state.gone && !state.cancelRequested;
}

/**
 * `result`, unless the workflow it was created for is gone: then it is undone with `undo` and this activity ends:
 * cancelled when it is that workflow's own, else `RequesterGone` (a submitter's, not retried; nobody hears of it).
 * `requester`: the workflow that asked a submitter for it; absent, this activity's own. A failed undo is thrown: a
 * submitter's batch then retries it (its retry finds what it created). What a cancelled workflow that leaves its job
 * alone (`leaveOnCancel`) created is left running, as it asked.
 */
export async function undoneIfGone<T>(
  result: T,
  undo: (result: T) => Promise<void>,
  requester?: Requester,
  leaveOnCancel?: boolean,
): Promise<T> {
  const own = activityInfo().workflowExecution;
  const who = requester ?? { workflowId: own?.workflowId ?? '-', runId: own?.runId ?? '-' };
  const state = await stateOf(who);
  if (!state.gone) return result;
  if (leaveOnCancel && state.status === 'CANCELLED') {
    log.info('the workflow that asked for this was cancelled and leaves it running', { workflowId: who.workflowId });
    return result;
  }
  log.warn('the workflow that asked for this is gone; undoing it', { workflowId: who.workflowId });
  await undo(result);
  const message = 'the workflow that asked for this write is gone; what it created is undone';
  if (!requester) throw new CancelledFailure(message);
  throw ApplicationFailure.create({ type: 'RequesterGone', message, nonRetryable: true });
}

/**
 * Cancels a job its workflow will never hear of; one that already ended (409) is left as it is. Any other failure is
 * thrown: a submitter's batch then ends its attempt, and its retry finds the job again and cancels it.
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
 * Which of these requesters may still ask their submitter again (src/exactly-once/workflow/submitter.ts): their workflow runs and
 * the requesting activity is pending (it may retry), or a settle of its workflow is (`settleAsk`, which reads the
 * answer of an ask that was cancelled or ended unanswered, however long it waited for a worker). Read by a submitter
 * with nothing left to send, to know which answers it must keep.
 */
export async function stillAsking(requesters: Requester[]): Promise<boolean[]> {
  const { client } = Context.current();
  return Promise.all(
    requesters.map(async ({ workflowId, runId, activityId }) => {
      try {
        const d = await beatingWhile(client.workflow.getHandle(workflowId, runId).describe());
        const pending = d.raw.pendingActivities ?? [];
        return (
          d.status.name === 'RUNNING' &&
          pending.some((a) => a.activityId === activityId || a.activityType?.name === SETTLE)
        );
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return false;
        throw err;
      }
    }),
  );
}
