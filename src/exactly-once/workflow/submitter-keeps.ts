/**
 * What a target's submitter (submitter.ts) keeps: the answers its requesters may still ask for (until when, and when
 * they are forgotten: their requester will not ask again, its workflow gone or its activity ended past the lookup
 * grace), the jobs they name, which a later send's lookup skips, and the queue it carries into its next run when it
 * continues as new. Pure but for the one question it asks (forgetAnswered): workflow code, tested on its own.
 */
import type { Requester, SendRecord, WriteAnswer, WriteRequest } from '../messages.js';
import { CALL } from '../../contract/activity-options.js';
import { ourActivities } from '../../workflows/ours.js';

/**
 * An answer kept for its requester: until when at the latest, and when its requester was first seen no longer asking
 * (the lookup grace runs from then).
 */
export interface Kept {
  answer: WriteAnswer;
  keepUntil: number;
  requester?: Requester | undefined;
  goneSince?: number | undefined;
}

/**
 * How long an answer is kept after its requesting activity was first seen no longer pending: the lookup its workflow
 * makes when that activity ended unanswered (settleAsk, through-submitter.ts) comes right after. Counted from that check,
 * not from the one before it that saw the activity pending (up to LONGEST_IDLE_MS earlier), so the grace is whole.
 */
const LOOKUP_GRACE_MS = 5 * 60_000;

/** Drops the answers whose requesters will not ask again: their workflow is gone, or their activity long ended. */
export async function forgetAnswered(kept: Map<string, Kept>): Promise<void> {
  const entries = [...kept].filter(([, k]) => k.requester);
  for (const [id, k] of kept) if (!k.requester) kept.delete(id);
  if (entries.length === 0) return;
  const asking = await ourActivities(CALL).stillAsking(entries.map(([, k]) => k.requester!));
  const now = Date.now();
  entries.forEach(([id, k], i) => {
    if (asking[i]) k.goneSince = undefined;
    else if (now - (k.goneSince ??= now) > LOOKUP_GRACE_MS) kept.delete(id);
  });
}

/** The jobs this submitter answered with: never the job of a later request, whose lookup skips them (reconcile.ts). */
export function answeredJobs(kept: Map<string, Kept>): string[] {
  const ids: string[] = [];
  for (const { answer } of kept.values()) {
    const result = 'result' in answer ? (answer.result as { jobId?: unknown } | null) : null;
    if (typeof result?.jobId === 'string') ids.push(result.jobId);
  }
  return ids;
}

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
