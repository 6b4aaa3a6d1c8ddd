/**
 * Asking a target's submitter (src/exactly-once/workflow/submitter.ts) for a request's answer, as a requester does whose answer is
 * not handed over in its own process (answers-here.ts): it asks where the request stands (a query) until its turn is
 * near, then waits for its answer in an update. Temporal admits 10 updates in flight per workflow, and a signal has no
 * such limit; a query is refused only when too many come while a workflow task runs, and is then asked again later.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { HELD_AT_MOST, answerUpdate, placeQuery, type Place, type WriteAnswer } from './messages.js';

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
 * The longest a requester told its place waits before it asks again. Its wait is a fraction of its distance (below),
 * so one far back asks a few times, each nearer its turn, not once every few seconds: at 1,000 pipelines on one target
 * each asked every 10 s for minutes, and those queries were a quarter of what reached the server. A batch in its own
 * process wakes it when it takes its request (answers-here.ts), so a long wait there hears nothing late.
 */
export const LONGEST_ASK_GAP_MS = 60_000;

/**
 * How long a requester told its place waits before it asks again: until about HELD_AT_MOST are ahead of it at the
 * submitter's pace, times 0.6 to 1 (`jitter`: asked too early, it is told its place again; too late, it hears its
 * answer late), between a tenth of a second and LONGEST_ASK_GAP_MS.
 */
export const untilNearTurn = ({ queued, eachMs }: { queued: number; eachMs: number }, jitter = Math.random()): number =>
  Math.min(LONGEST_ASK_GAP_MS, Math.max(100, (queued - HELD_AT_MOST + 1) * eachMs)) * (0.6 + jitter * 0.4);

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
 * Asks submitter `handle` for request `id`'s answer until it has one, as a requester in another process than the
 * batch that sends it hears it (answerFrom; tests ask this way from outside the worker). `known`: its place, if the
 * caller has just asked it.
 */
export async function askFor(
  handle: WorkflowHandle,
  id: string,
  unknown: () => Promise<boolean>,
  within: <T>(p: Promise<T>) => Promise<T> = (p) => p,
  known?: Place,
): Promise<WriteAnswer> {
  // A submitter busy with a burst, or with no worker free to answer, may leave the question unanswered: asked again,
  // later each time.
  const ask = (refused = 0): Promise<Place> =>
    within(handle.query(placeQuery, id)).catch(async (err: unknown) => {
      if (!unansweredNow(err)) throw err;
      await within(delay(Math.min(BUSY_MS * 2 ** refused, 10_000) * (0.5 + Math.random())));
      return ask(refused + 1);
    });
  let place = known ?? (await ask());
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
