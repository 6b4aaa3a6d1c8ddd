/**
 * Asking a target's submitter (src/exactly-once/workflow/submitter.ts) to send a write, from the activity that would otherwise
 * send it: queued by signal-with-start under the activity's own id, so that its retry attaches to the same request or
 * gets its answer, which a batch in its own process hands over and one elsewhere answers when asked (answers-here.ts).
 * A cancel while the request waits its turn withdraws it (nothing is sent, the activity ends cancelled); one already
 * being sent is answered as usual, so what it created is known and undone by its workflow.
 */
import { activityInfo, CancelledFailure, Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import {
  SUBMITTER_WORKFLOW_TYPE,
  placeQuery,
  requestIdOf,
  submitSignal,
  withdrawSignal,
  WITHDRAWN_UNSENT,
  type Requester,
  type WriteAnswer,
  type WriteRequest,
} from './messages.js';
import { DEFAULT_OUTAGE_TOLERANCE_MS } from '../contract/activity-options.js';
import { answerFrom } from './answers-here.js';
import { beatingWhile } from '../activities/heartbeats.js';
import { stillWanted } from './requester-gone.js';
import { traceCarrier } from '../activities/request-trace.js';

/** This activity (or activity `activityId` of its workflow), as the submitter names its requester. */
export function requester(activityId = activityInfo().activityId): Requester {
  const own = activityInfo().workflowExecution;
  return { workflowId: own?.workflowId ?? '-', runId: own?.runId ?? '-', activityId };
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
 * `p`, unless this activity stops first for another reason than its workflow's cancel: its worker shuts down, its
 * workflow is gone, it timed out, it was paused or reset. It then need not wait for the answer, which its next attempt
 * (asking under the same id) or the submitter itself (undoing it for a workflow that is gone) takes care of. A
 * workflow's cancel is waited out: the answer names what the workflow must cancel. Beats while it waits.
 */
function unlessLeaving<R>(p: Promise<R>): Promise<R> {
  const context = Context.current();
  const signal = context.cancellationSignal;
  const leaving = new Promise<R>((resolve, reject) => {
    const check = () => {
      if (!context.cancellationDetails?.cancelRequested) reject(signal.reason as Error);
    };
    if (signal.aborted) check();
    else signal.addEventListener('abort', check, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', check));
  });
  return beatingWhile(leaving);
}

/** What the write created (undefined: withdrawn, nothing sent); the failure it ended with is thrown. */
function resultOf<T>(answer: WriteAnswer): T | undefined {
  if ('withdrawn' in answer) return undefined;
  if ('failure' in answer)
    throw ApplicationFailure.create({
      message: answer.failure.message,
      type: answer.failure.type ?? undefined,
      nonRetryable: answer.failure.nonRetryable,
      details: answer.failure.details,
    });
  return answer.result as T;
}

/** Queues `request` at its target's submitter, starting the submitter if none runs; known requests stay as they are. */
export function queueAt(client: Client, submitter: { id: string; taskQueue: string }, request: WriteRequest) {
  return client.workflow.signalWithStart(SUBMITTER_WORKFLOW_TYPE, {
    workflowId: submitter.id,
    taskQueue: submitter.taskQueue,
    args: [{}],
    signal: submitSignal,
    signalArgs: [request],
  });
}

/** How long a submitter retries a request through an outage: what the requesting activity's own retries would. */
export const outageToleranceOf = (): number => activityInfo().scheduleToCloseTimeoutMs || DEFAULT_OUTAGE_TOLERANCE_MS;

/**
 * The submitter an activity's request goes to, on `submitterQueue` (its workflow's task queue), @default this
 * activity's: `own`, that task queue's for its deployment and target.
 */
export function submitterFor(
  named: { submitterQueue?: string | undefined },
  own: (taskQueue: string) => string,
): { id: string; taskQueue: string } {
  const taskQueue = named.submitterQueue ?? activityInfo().taskQueue;
  return { id: own(taskQueue), taskQueue };
}

/**
 * Has the submitter `submitter.id` (on `submitter.taskQueue`, where it starts if none runs) send `input` with
 * activity `activity`, and returns what it created; rethrows the failure it ended with. `signal`: what
 * aborts the wait for the answer (the activity's cancel, unless the caller lets a send in flight finish); it withdraws
 * the request if it is still queued.
 */
export async function throughSubmitter<T>(
  submitter: { id: string; taskQueue: string },
  activity: string,
  input: Record<string, unknown>,
  outageToleranceMs: number,
  signal: AbortSignal,
): Promise<T> {
  const context = Context.current();
  const { client } = context;
  const me = requester();
  const id = requestIdOf(me);
  const request: WriteRequest = {
    id,
    activity,
    input: { ...input, requester: me },
    outageToleranceMs,
    askAgainUntil: askAgainUntil(),
    trace: traceCarrier(),
  };
  const handle = client.workflow.getHandle(submitter.id);
  const enqueue = () => unlessLeaving(queueAt(client, submitter, request));
  // Withdrawn when its workflow is cancelled or gone; a worker that shuts down leaves it queued for the next attempt.
  let withdrawing = false;
  const withdraw = () => {
    const details = context.cancellationDetails;
    if (!details?.cancelRequested && !details?.notFound) return;
    withdrawing = true;
    void handle.signal(withdrawSignal, id).catch(() => undefined);
  };
  await enqueue();
  // Listened for once it is queued: a withdraw that overtook its request would leave the request to be sent.
  if (signal.aborted) withdraw();
  else signal.addEventListener('abort', withdraw, { once: true });
  try {
    // Unknown once withdrawn (by this activity, or by its workflow's cancel: submission.ts): nothing was sent. Else it
    // was dropped when the submitter continued as new: queued again.
    const reenqueue = async () => !withdrawing && (await stillWanted(me)) && (await enqueue(), true);
    const answer = await answerFrom(handle, id, reenqueue, unlessLeaving, signal);
    // Said unsent: every attempt asked under the same request, which no one sent.
    if ('withdrawn' in answer)
      throw new CancelledFailure('withdrawn while it waited its turn: nothing was sent', [WITHDRAWN_UNSENT]);
    return resultOf<T>(answer) as T;
  } finally {
    signal.removeEventListener('abort', withdraw);
  }
}

/**
 * What submitter `submitterId` answered the request of activity `activityId` of this workflow (one that ended
 * unanswered), waiting for it if it is being sent; undefined when it sent nothing for it: never asked, withdrawn now
 * while it waited its turn, or refused. No submitter running: nothing of it is kept.
 */
export async function answerOf<T>(submitterId: string, activityId: string): Promise<T | undefined> {
  const requestId = requestIdOf(requester(activityId));
  const handle = Context.current().client.workflow.getHandle(submitterId);
  try {
    await handle.signal(withdrawSignal, requestId);
    // Asked once at once, though a batch of this process may have it (it would hand the answer over only at its
    // turn): one withdrawn now, queued or in a batch, is never sent, and is told so.
    const place = await handle.query(placeQuery, requestId).catch(() => undefined);
    if (place && 'unknown' in place) return undefined;
    if (place && !('queued' in place)) return resultOf<T>(place);
    const now = AbortSignal.abort(); // its wait ended: no batch of this process is likely to have it
    return resultOf<T>(await answerFrom(handle, requestId, async () => false, unlessLeaving, now, place));
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
