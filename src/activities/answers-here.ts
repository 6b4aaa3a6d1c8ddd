/**
 * Answers heard in this process: when a submitter's batch (send-in-turn.ts) runs in the worker process where the
 * request's own activity waits (through-submitter.ts), it hands the answer over at once, and the requester stops
 * asking the submitter. Across processes the requester hears it by asking, as before; nothing here is needed for an
 * answer to be heard, only for it to be heard at once. An answer is handed over only once the submitter has it (the
 * `sent` signal that carries it was taken, or the batch that gave it is ending), so what the requester hears here is
 * what it would hear by asking.
 */
import type { WriteAnswer } from '../contract/submitter.js';

const listening = new Map<string, Set<(answer: WriteAnswer) => void>>();

/** Hands request `id`'s answer to its requester, if it waits in this process. */
export function tellHere(id: string, answer: WriteAnswer): void {
  for (const hear of listening.get(id) ?? []) hear(answer);
}

/** Request `id`'s answer, if handed over in this process before `stop` is called. */
export function hearHere(id: string): { answer: Promise<WriteAnswer>; stop: () => void } {
  let hear: (answer: WriteAnswer) => void = () => undefined;
  const answer = new Promise<WriteAnswer>((resolve) => (hear = resolve));
  const here = listening.get(id) ?? new Set();
  listening.set(id, here.add(hear));
  const stop = () => {
    here.delete(hear);
    if (here.size === 0 && listening.get(id) === here) listening.delete(id);
  };
  return { answer, stop };
}
