/**
 * Asking a target's submitter (src/workflows/submitter.ts) to send a write, from the activity that would otherwise
 * send it: queued by signal-with-start under the activity's own id, so that its retry attaches to the same request or
 * gets its answer. The requester asks where it stands (a query) until its turn is near, then waits for its answer in
 * an update: Temporal admits 10 updates in flight per workflow, and a signal has no such limit (a query is refused only
 * when too many come while a workflow task runs, and is then asked again later); a batch sent in its own process hands
 * it over at once (answers-here.ts). A cancel
 * while the request waits its turn withdraws it (nothing is sent, the activity ends cancelled); one already being
 * sent is answered as usual, so what it created is known and undone by its workflow.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { activityInfo, CancelledFailure, Context } from '@temporalio/activity';
import { WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import {
  HELD_AT_MOST,
  SUBMITTER_WORKFLOW_TYPE,
  answerUpdate,
  placeQuery,
  requestIdOf,
  submitSignal,
  withdrawSignal,
  type Place,
  type Requester,
  type WriteAnswer,
  type WriteRequest,
} from '../contract/submitter.js';
import { abortable } from '../api/abortable.js';
import { hearHere } from './answers-here.js';
import { traceCarrier } from './request-trace.js';

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
 * Whether a wait in an update ended without its answer and is worth asking about again: the submitter continued as new
 * meanwhile (the update ended with its run), or Temporal refused the update for the updates in flight (at most 10).
 */
function askAgain(err: unknown): boolean {
  if (
    err instanceof WorkflowUpdateFailedError &&
    /completed before the Update completed/i.test(err.cause?.message ?? '')
  )
    return true;
  return saysSomewhere(err, /in-flight updates/i);
}

/** Whether a failure, or any failure it was caused by, says `what`. */
function saysSomewhere(err: unknown, what: RegExp): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) if (what.test(e.message)) return true;
  return false;
}

/**
 * How long a requester told its place waits before it asks again: until about HELD_AT_MOST are ahead of it at the
 * submitter's pace, less a little (asked too early, it is told its place again; too late, it hears its answer late),
 * between a tenth of a second and 10 s.
 */
const untilNearTurn = ({ queued, eachMs }: { queued: number; eachMs: number }): number =>
  Math.min(10_000, Math.max(100, (queued - HELD_AT_MOST + 1) * eachMs)) * (0.6 + Math.random() * 0.4);

/**
 * Whether Temporal could not answer a question (a query) now, and asking again later may: the workflow's tasks cannot
 * keep up with its queries (the history service buffers the queries that come while a workflow task runs, only a few
 * per execution), or no worker took the query before its deadline (a new target's submitter whose first workflow
 * task waits in a busy queue, a run that has just continued as new, a restarting worker). The server says so after
 * 30 s; a worker's client (its native connection, as an activity's) may end the call first with its own deadline
 * ("Timeout expired"), or with its HTTP/2 stream reset under load ("h2 protocol error"). At N = 1,000 pipelines on
 * targets of their own, before they were matched here, the first failed an attempt of about half the profiling
 * waits, the second of 1.5 %.
 */
export const unansweredNow = (err: unknown): boolean =>
  saysSomewhere(
    err,
    /query buffer is full|query timed out before a worker could process it|^timeout expired$|^h2 protocol error/i,
  );

/** About how long a requester whose query went unanswered waits before it asks again, at first (doubling, up to 10 s). */
const BUSY_MS = 1_000;

/** A fresh id for each wait in an update: an update id is answered once per run, and a place told earlier is no answer. */
const askId = (requestId: string): string => `${requestId}#${randomUUID()}`;

/** Waits for request `id`'s answer in an update; a wait that ended unanswered says the request is first in line. */
async function waitInUpdate(handle: WorkflowHandle, id: string): Promise<Place> {
  try {
    return await handle.executeUpdate(answerUpdate, { updateId: askId(id), args: [id] });
  } catch (err) {
    if (askAgain(err)) return { queued: 0, eachMs: 0 };
    throw err;
  }
}

/**
 * The answer submitter `handle` gives request `id`: handed over in this process by the batch that sent it
 * (answers-here.ts), else asked for: asks where it stands, waits until its turn is near, then waits in an update.
 * When the submitter does not know the request, `unknown` queues it again (true) or takes it as never sent (false:
 * `withdrawn`). `within` bounds each wait (the activity leaving).
 */
export async function answerFrom(
  handle: WorkflowHandle,
  id: string,
  unknown: () => Promise<boolean>,
  within: <T>(p: Promise<T>) => Promise<T> = (p) => p,
): Promise<WriteAnswer> {
  const here = hearHere(id);
  const heard = new AbortController();
  // Heard here, the asking stops at its next step (a call in flight ends in its own time).
  const asked = askFor(handle, id, unknown, (p) => within(abortable(p, heard.signal)));
  try {
    return await Promise.race([here.answer, asked]);
  } finally {
    here.stop();
    heard.abort(new Error('answered: asked no more'));
    asked.catch(() => undefined); // stopped asking: heard here
  }
}

/**
 * Asks submitter `handle` for request `id`'s answer until it has one, as a requester in another process than the
 * batch that sends it hears it (answerFrom; tests ask this way from outside the worker).
 */
export async function askFor(
  handle: WorkflowHandle,
  id: string,
  unknown: () => Promise<boolean>,
  within: <T>(p: Promise<T>) => Promise<T> = (p) => p,
): Promise<WriteAnswer> {
  // A submitter busy with a burst, or with no worker free to answer, may leave the question unanswered: asked again,
  // later each time.
  const ask = (refused = 0): Promise<Place> =>
    within(handle.query(placeQuery, id)).catch(async (err: unknown) => {
      if (!unansweredNow(err)) throw err;
      await within(delay(Math.min(BUSY_MS * 2 ** refused, 10_000) * (0.5 + Math.random())));
      return ask(refused + 1);
    });
  let place = await ask();
  for (;;) {
    if ('unknown' in place) {
      if (!(await unknown())) return { withdrawn: true };
    } else if (!('queued' in place)) return place;
    else if (place.queued < HELD_AT_MOST) {
      place = await within(waitInUpdate(handle, id));
      if (!('queued' in place)) continue;
      await within(delay(untilNearTurn(place)));
    } else await within(delay(untilNearTurn(place)));
    place = await ask();
  }
}

/**
 * `p`, unless this activity stops first for another reason than its workflow's cancel: its worker shuts down, its
 * workflow is gone, it timed out, it was paused or reset. It then need not wait for the answer, which its next attempt
 * (asking under the same id) or the submitter itself (undoing it for a workflow that is gone) takes care of. A
 * workflow's cancel is waited out: the answer names what the workflow must cancel.
 */
function unlessLeaving<R>(p: Promise<R>): Promise<R> {
  const context = Context.current();
  const signal = context.cancellationSignal;
  return new Promise<R>((resolve, reject) => {
    const check = () => {
      if (!context.cancellationDetails?.cancelRequested) reject(signal.reason as Error);
    };
    if (signal.aborted) check();
    else signal.addEventListener('abort', check, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', check));
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

/**
 * Has the submitter `submitter.id` (on its task queue: @default this activity's) send `input` with activity
 * `activity`, and returns what it created; rethrows the failure it ended with. `signal`: what aborts the wait for the
 * answer (the activity's cancel, unless the caller lets a send in flight finish); it withdraws the request if it is
 * still queued.
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
  const taskQueue = submitter.taskQueue ?? activityInfo().taskQueue;
  const enqueue = () => unlessLeaving(queueAt(client, { id: submitter.id, taskQueue }, request));
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
    // Unknown once withdrawn: nothing was sent. Else it was dropped when the submitter continued as new: queued again.
    const reenqueue = async () => !withdrawing && (await enqueue(), true);
    const answer = await answerFrom(handle, id, reenqueue, unlessLeaving);
    if ('withdrawn' in answer) throw new CancelledFailure('withdrawn while it waited its turn: nothing was sent');
    return resultOf<T>(answer) as T;
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
    return resultOf<T>(await answerFrom(handle, requestId, async () => false, unlessLeaving));
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
