/**
 * Where a requester hears its answer: from a submitter's batch (send-in-turn.ts) running in the worker process where
 * the request's own activity waits (through-submitter.ts), else by asking the submitter (ask-submitter.ts). A batch
 * here says which requests it has taken, and hands each answer over once the submitter has it (the `sent` signal that
 * carries it was taken, or the batch that gave it is ending), so what the requester hears here is what it would hear
 * by asking. A request taken here is not asked about: its requester asks only when no batch here has it, after a
 * moment (FIRST_ASK_MS, at once when told to), and at once when a batch here leaves it unanswered. While its
 * submitter's batches run here (the next is likely to run here too, and take it), it does not ask, and a batch that
 * starts here stops its asking, for up to LONGEST_ASK_GAP_MS between questions: at 1,000 pipelines on one target, most
 * questions were asked during those batches. Where they alternate with another process's under a long queue, its answer
 * may be heard that much later, in a wait of minutes. Nothing here is needed for an answer to be heard, only for it to
 * be heard without asking: across processes, the asking hears it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import type { Place, WriteAnswer } from './messages.js';
import { abortable } from '../api/abortable.js';
import { askFor, LONGEST_ASK_GAP_MS } from './ask-submitter.js';

interface Listener {
  /** The submitter the request waits at. */
  submitter: string;
  hear: (answer: WriteAnswer) => void;
  /** Called when a batch here takes the request or leaves it. */
  moved: () => void;
}

const listening = new Map<string, Set<Listener>>();
/** The requests a batch in this process has taken and not yet answered or left. */
const taken = new Set<string>();
/** Per submitter with batches in this process: how many run now, and when the last one started and ended. */
const lines = new Map<string, { running: number; startedAt: number; endedAt: number }>();

/**
 * How long a requester whose request no batch here has taken waits before it asks: long enough for a new target's
 * submitter to start its batch in a busy worker (the request is then taken here, and nobody asks), short enough that a
 * requester whose batch runs in another process hears its answer soon after it is given.
 */
export const FIRST_ASK_MS = 3_000;

/** Hands request `id`'s answer to its requester, if it waits in this process. */
export function tellHere(id: string, answer: WriteAnswer): void {
  for (const l of listening.get(id) ?? []) l.hear(answer);
}

/** A batch in this process has taken request `id` (true), or leaves it without telling its answer here (false). */
export function takeHere(id: string, isTaken: boolean): void {
  if (isTaken === taken.has(id)) return;
  if (isTaken) taken.add(id);
  else taken.delete(id);
  for (const l of listening.get(id) ?? []) l.moved();
}

/** A batch of submitter `submitter` starts in this process (true) or ends (false): its requesters here look again. */
export function batchHere(submitter: string, running: boolean): void {
  const line = lines.get(submitter) ?? { running: 0, startedAt: 0, endedAt: 0 };
  line.running += running ? 1 : -1;
  lines.set(submitter, line);
  if (running) line.startedAt = Date.now();
  else line.endedAt = Date.now();
  for (const [s, l] of lines) if (l.running === 0 && l.endedAt + FIRST_ASK_MS < Date.now()) lines.delete(s);
  for (const here of listening.values()) for (const l of here) if (l.submitter === submitter) l.moved();
}

/**
 * Until when a requester of `submitter` waits before it asks, for the batches here: while one runs, or FIRST_ASK_MS
 * after the last ended (the submitter's next is then likely to start here); 0 when none has run here.
 */
function lineHereUntil(submitter: string): number {
  const line = lines.get(submitter);
  if (!line) return 0;
  return line.running > 0 ? Infinity : line.endedAt + FIRST_ASK_MS;
}

/** Whether a batch of `submitter` started here since `since`, and runs. */
function batchHereSince(submitter: string, since: number): boolean {
  const line = lines.get(submitter);
  return line !== undefined && line.running > 0 && line.startedAt >= since;
}

/**
 * Request `id` as heard in this process until `stop` is called: its answer, if handed over; whether a batch here has
 * it now; and `moved`, which settles the next time a batch here takes it or leaves it.
 */
export function hearHere(
  id: string,
  submitter = '',
): {
  answer: Promise<WriteAnswer>;
  isTaken: () => boolean;
  moved: () => Promise<void>;
  stop: () => void;
} {
  let wake = (): void => undefined;
  const listener: Listener = { submitter, hear: () => undefined, moved: () => wake() };
  const answer = new Promise<WriteAnswer>((resolve) => (listener.hear = resolve));
  const here = listening.get(id) ?? new Set();
  listening.set(id, here.add(listener));
  const moved = () => new Promise<void>((resolve) => (wake = resolve));
  const stop = () => {
    here.delete(listener);
    if (here.size === 0 && listening.get(id) === here) listening.delete(id);
  };
  return { answer, isTaken: () => taken.has(id), moved, stop };
}

/**
 * The answer submitter `handle` gives request `id`: handed over by a batch here, else asked for (askFor) while no
 * batch here has it, nor, for a while, runs its submitter's batches. `unknown` is what the asking does when the
 * submitter does not know the request (askFor);
 * `within` bounds each wait (the activity leaving); `askNow`, once aborted, ends the first moment's wait (a cancel
 * that needs the answer to undo what was sent); `known`: its place, if the caller has just asked it (not asked again).
 */
export async function answerFrom(
  handle: WorkflowHandle,
  id: string,
  unknown: () => Promise<boolean>,
  within: <T>(p: Promise<T>) => Promise<T> = (p) => p,
  askNow?: AbortSignal,
  known?: Place,
): Promise<WriteAnswer> {
  const here = hearHere(id, handle.workflowId);
  let asking: { stop: AbortController; answer: Promise<WriteAnswer> } | undefined;
  const stopAsking = (why: string) => {
    asking?.stop.abort(new Error(why));
    asking = undefined;
  };
  let askedAt = Date.now();
  let askFrom = askedAt + FIRST_ASK_MS; // 0: at once
  /** When it may ask: from askFrom, and not while its submitter's batches run here (LONGEST_ASK_GAP_MS at most). */
  const askAt = (): number =>
    askFrom && Math.max(askFrom, Math.min(lineHereUntil(handle.workflowId), askedAt + LONGEST_ASK_GAP_MS));
  let wasTaken = false;
  try {
    for (;;) {
      const isTaken = here.isTaken();
      if (wasTaken && !isTaken) askFrom = 0; // left unanswered by a batch here: only the submitter can tell
      wasTaken = isTaken;
      if (isTaken) stopAsking('taken by a batch here: asked no more');
      else if (asking && !askNow?.aborted && batchHereSince(handle.workflowId, askedAt))
        stopAsking("its submitter's batches run here: asked no more for now");
      else if (!asking && (Date.now() >= askAt() || askNow?.aborted)) {
        askedAt = Date.now();
        const stop = new AbortController();
        // Stopped, the asking ends at its next step (a call in flight ends in its own time).
        const answer = askFor(handle, id, unknown, (p) => within(abortable(p, stop.signal)), known);
        answer.catch(() => undefined);
        asking = { stop, answer };
      }
      known = undefined; // told before the wait: stale after it
      const pause = new AbortController();
      const wakes: Promise<WriteAnswer | undefined>[] = [here.answer, here.moved().then(() => undefined)];
      if (asking) wakes.push(asking.answer);
      else if (!isTaken) {
        const until = askNow ? AbortSignal.any([pause.signal, askNow]) : pause.signal;
        wakes.push(delay(Math.max(askAt() - Date.now(), 0), undefined, { signal: until }).catch(() => undefined));
      }
      try {
        const heard = await within(Promise.race(wakes));
        if (heard) return heard;
      } finally {
        pause.abort();
      }
    }
  } finally {
    here.stop();
    stopAsking('answered: asked no more');
  }
}
