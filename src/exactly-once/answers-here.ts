/**
 * Where a requester hears its answer: from a submitter's batch (send-in-turn.ts) running in the worker process where
 * the request's own activity waits (through-submitter.ts), else by asking the submitter (ask-submitter.ts). A batch
 * here says which requests it has taken, and hands each answer over once the submitter has it (the `sent` signal that
 * carries it was taken, or the batch that gave it is ending), so what the requester hears here is what it would hear
 * by asking. A request taken here is not asked about: its requester asks only when no batch here has it, after a
 * moment (FIRST_ASK_MS, at once when told to), and at once when a batch here leaves it unanswered. Nothing here is
 * needed for an answer to be heard, only for it to be heard without asking: across processes, the asking hears it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import type { Place, WriteAnswer } from './messages.js';
import { abortable } from '../api/abortable.js';
import { askFor } from './ask-submitter.js';

interface Listener {
  hear: (answer: WriteAnswer) => void;
  /** Called when a batch here takes the request or leaves it. */
  moved: () => void;
}

const listening = new Map<string, Set<Listener>>();
/** The requests a batch in this process has taken and not yet answered or left. */
const taken = new Set<string>();

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

/**
 * Request `id` as heard in this process until `stop` is called: its answer, if handed over; whether a batch here has
 * it now; and `moved`, which settles the next time a batch here takes it or leaves it.
 */
export function hearHere(id: string): {
  answer: Promise<WriteAnswer>;
  isTaken: () => boolean;
  moved: () => Promise<void>;
  stop: () => void;
} {
  let wake = (): void => undefined;
  const listener: Listener = { hear: () => undefined, moved: () => wake() };
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
 * batch here has it. `unknown` is what the asking does when the submitter does not know the request (askFor);
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
  const here = hearHere(id);
  let asking: { stop: AbortController; answer: Promise<WriteAnswer> } | undefined;
  const stopAsking = (why: string) => {
    asking?.stop.abort(new Error(why));
    asking = undefined;
  };
  let askFrom = Date.now() + FIRST_ASK_MS;
  let wasTaken = false;
  try {
    for (;;) {
      const isTaken = here.isTaken();
      if (wasTaken && !isTaken) askFrom = 0; // left unanswered by a batch here: only the submitter can tell
      wasTaken = isTaken;
      if (isTaken) stopAsking('taken by a batch here: asked no more');
      else if (!asking && (Date.now() >= askFrom || askNow?.aborted)) {
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
        wakes.push(delay(Math.max(askFrom - Date.now(), 0), undefined, { signal: until }).catch(() => undefined));
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
