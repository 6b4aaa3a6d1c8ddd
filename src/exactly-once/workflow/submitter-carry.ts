/**
 * What a target's submitter (submitter.ts) carries of its queue into its next run when it continues as new. Pure:
 * workflow code, tested on its own.
 */
import type { SendRecord, WriteRequest } from '../messages.js';

/** A request waiting its turn, with the record of its send when an earlier batch sent it and lost its answer. */
export type Queued = WriteRequest & { sending?: SendRecord | undefined };

/**
 * How many requests never sent a run carries into the next when it continues as new (each is its requester's input,
 * and the next run's input must stay well under Temporal's 2 MB payload limit). The others are dropped: nothing of
 * theirs was sent, and their requesters, finding them unknown, queue them again.
 */
export const CARRIED_AT_MOST = 500;

/** What a run carries of its queue: every request that may have been sent, and the first CARRIED_AT_MOST others. */
export function carried(queue: Queued[]): Queued[] {
  let others = 0;
  return queue.filter((r) => r.sending || others++ < CARRIED_AT_MOST);
}
