/**
 * Asking a target's submitter (src/workflows/submitter.ts) to send a write, from the activity that would otherwise
 * send it: by update-with-start under the activity's own id, so that its retry attaches to the same request or gets
 * its answer. A cancel while the request waits its turn withdraws it (nothing is sent, the activity ends cancelled);
 * one already being sent is answered as usual, so what it created is known and undone by its workflow.
 */
import { randomUUID } from 'node:crypto';
import { activityInfo, CancelledFailure, Context, sleep } from '@temporalio/activity';
import { WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import {
  SUBMITTER_CONTINUING,
  SUBMITTER_WORKFLOW_TYPE,
  requestIdOf,
  submitUpdate,
  withdrawSignal,
  type Requester,
  type SubmitReply,
  type WriteAnswer,
} from '../contract/submitter.js';

/** This activity, as the submitter names its requester. */
export function requester(): Requester {
  const info = activityInfo();
  return {
    workflowId: info.workflowExecution?.workflowId ?? '-',
    runId: info.workflowExecution?.runId ?? '-',
    activityId: info.activityId,
  };
}

/** How long after its last try a request may still be asked about: by the lookup of a wait that ended unanswered. */
const LOOKUP_ROOM_MS = 30 * 60_000;

/**
 * Until when this request may be asked about again: this activity's schedule-to-close (else its current attempt's
 * start-to-close), and the room for the lookup its workflow makes when it ended unanswered.
 */
function askAgainUntil(): number {
  const info = activityInfo();
  const end = info.scheduleToCloseTimeoutMs
    ? info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs
    : info.currentAttemptScheduledTimestampMs + info.startToCloseTimeoutMs;
  return end + LOOKUP_ROOM_MS;
}

/**
 * Whether Temporal refused the update for the workflow's updates in flight (at most 10): the requester asks again in a
 * moment, within this attempt.
 */
function crowded(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) if (/in-flight updates/i.test(e.message)) return true;
  return false;
}

/**
 * How long a requester told its place waits before it asks again: about the time the requests ahead of it take
 * (tens of milliseconds each, sent in batches), between a quarter of a second and 5 s, with jitter.
 */
const untilNearTurn = (ahead: number): number =>
  Math.min(5_000, Math.max(250, ahead * 40)) * (0.75 + Math.random() / 2);

/** A fresh id for each ask: an update id is answered once per run, and a place told earlier is no answer. */
const askId = (requestId: string): string => `${requestId}#${randomUUID()}`;

/** Whether a refused update is worth asking again at once: the submitter was making room to continue as new. */
function askAgain(err: unknown): boolean {
  if (!(err instanceof WorkflowUpdateFailedError)) return false;
  const cause = err.cause;
  if (cause instanceof ApplicationFailure && cause.type === SUBMITTER_CONTINUING) return true;
  // An update still queued when the run continued as new ends with its run; the next run takes it.
  return /completed before the Update completed/i.test(cause?.message ?? '');
}

/**
 * Rejects when this activity stops for another reason than its workflow's cancel: its worker shuts down, its
 * workflow is gone, it timed out, it was paused or reset. It then need not wait for the answer, which its next
 * attempt (asking under the same id) or the submitter itself (undoing it for a workflow that is gone) takes care of.
 * A workflow's cancel is waited out: the answer names what the workflow must cancel.
 */
function leaving(): Promise<never> {
  const context = Context.current();
  return new Promise((_, reject) => {
    const check = () => {
      if (!context.cancellationDetails?.cancelRequested) reject(context.cancellationSignal.reason as Error);
    };
    if (context.cancellationSignal.aborted) check();
    else context.cancellationSignal.addEventListener('abort', check, { once: true });
  });
}

/** What the write created (undefined: withdrawn, nothing sent); the failure it ended with is thrown. */
function resultOf<T>(answer: WriteAnswer): T | undefined {
  if ('withdrawn' in answer) return undefined;
  if ('failure' in answer)
    throw ApplicationFailure.create({
      message: answer.failure.message,
      type: answer.failure.type ?? undefined,
      nonRetryable: answer.failure.nonRetryable,
    });
  return answer.result as T;
}

/**
 * Has the submitter `submitter.id` (on its task queue: @default this activity's) send `input` with activity `activity`, and returns what it created; rethrows the
 * failure it ended with. `signal`: what aborts the wait for the answer (the activity's cancel, unless the caller
 * lets a send in flight finish); it withdraws the request if it is still queued.
 */
export async function throughSubmitter<T>(
  submitter: { id: string; taskQueue?: string | undefined },
  activity: string,
  input: Record<string, unknown>,
  outageToleranceMs: number,
  signal: AbortSignal,
): Promise<T> {
  const context = Context.current();
  const { client } = context;
  const submitterId = submitter.id;
  const me = requester();
  const id = requestIdOf(me);
  const request = {
    id,
    activity,
    input: { ...input, requester: me },
    outageToleranceMs,
    askAgainUntil: askAgainUntil(),
  };
  // Withdrawn when its workflow is cancelled or gone; a worker that shuts down leaves it queued for the next attempt.
  const withdraw = () => {
    const details = context.cancellationDetails;
    if (!details?.cancelRequested && !details?.notFound) return;
    void client.workflow
      .getHandle(submitterId)
      .signal(withdrawSignal, id)
      .catch(() => undefined);
  };
  signal.addEventListener('abort', withdraw, { once: true });
  try {
    for (;;) {
      const start = new WithStartWorkflowOperation(SUBMITTER_WORKFLOW_TYPE, {
        workflowId: submitterId,
        taskQueue: submitter.taskQueue ?? activityInfo().taskQueue,
        workflowIdConflictPolicy: 'USE_EXISTING',
        args: [{}],
      });
      let answer: SubmitReply;
      try {
        answer = await Promise.race([
          client.workflow.executeUpdateWithStart(submitUpdate, {
            updateId: askId(id),
            args: [request],
            startWorkflowOperation: start,
          }),
          leaving(),
        ]);
      } catch (err) {
        if (crowded(err)) {
          await sleep(untilNearTurn(10));
          continue;
        }
        if (!askAgain(err)) throw err;
        await sleep(100);
        continue;
      }
      if ('queued' in answer) {
        await sleep(untilNearTurn(answer.queued));
        continue;
      }
      if ('withdrawn' in answer) throw new CancelledFailure('withdrawn while it waited its turn: nothing was sent');
      return resultOf<T>(answer) as T;
    }
  } finally {
    signal.removeEventListener('abort', withdraw);
  }
}

/**
 * What submitter `submitterId` answered request `requestId` (an activity of this workflow that ended unanswered),
 * waiting for it if it is being sent; undefined when it sent nothing for it: never asked, withdrawn now while it
 * waited its turn, or refused. No submitter running: nothing of it is kept.
 */
export async function answerOf<T>(submitterId: string, requestId: string): Promise<T | undefined> {
  const handle = Context.current().client.workflow.getHandle(submitterId);
  try {
    await handle.signal(withdrawSignal, requestId);
    const request = { id: requestId, activity: '', input: {}, outageToleranceMs: 0, askAgainUntil: 0, ifKnown: true };
    for (;;) {
      const reply = await handle.executeUpdate(submitUpdate, { updateId: askId(requestId), args: [request] });
      if (!('queued' in reply)) return resultOf<T>(reply);
      await sleep(untilNearTurn(reply.queued));
    }
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    // A submitter that ended meanwhile kept nothing: it ends only when no requester may ask again.
    const status = await handle.describe().then(
      (d) => d.status.name,
      () => undefined,
    );
    if (status !== undefined && status !== 'RUNNING') return undefined;
    throw err;
  }
}
