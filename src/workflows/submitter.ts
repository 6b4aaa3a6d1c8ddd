/**
 * The submitter of one target: every write of ours to that target (a kind of job on one table group or suite, the
 * orders of one recipe and variation) goes through it, one at a time, in the order asked. Its id is the target's
 * (`dataops-submit/<profile>/<kind>/<target>`, `dataops-order/…`), so Temporal keeps one per target across every
 * worker and workflow of the namespace. A lost answer can then only be about our own write: the write before it on the
 * target has answered, and the one after it is not sent yet.
 *
 * A requesting activity asks by update-with-start (src/activities/through-submitter.ts), under its own id; its retry
 * asks again under the same id and gets the same answer, never a second send. Each request is sent by the activity
 * that sends it when no one serialises (its kind's submit activity, runOrder), run here: its retries, its phase in its
 * heartbeat details, its lookup of a lost answer all stay as they are. A crashed worker holds the target only until
 * that activity's heartbeat times out. Answers are kept as long as their requester may ask again, across
 * continue-as-new; the submitter ends when it has no request and no answer left to keep.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  SUBMITTER_CONTINUING,
  recentJobsQuery,
  requestsQuery,
  sendOfQuery,
  sentSignal,
  submitUpdate,
  withdrawSignal,
  type Requester,
  type WriteAnswer,
  type WriteFailure,
  type WriteRequest,
} from '../contract/submitter.js';
import { CALL } from '../contract/activity-options.js';
import { activitiesWithin } from './shared.js';
import { ourActivities } from './ours.js';

export interface SubmitterState {
  /** The answers its requesters may still ask for again, with until when. */
  answers?: [string, Kept][];
}

/** An answer kept for its requester: until when at the latest, when it was given, when its requester was last seen. */
interface Kept {
  answer: WriteAnswer;
  keepUntil: number;
  at: number;
  requester?: Requester | undefined;
  seenAt: number;
}

/**
 * How long an answer is kept after its requesting activity was last seen pending: the lookup its workflow makes when
 * that activity ended unanswered (src/workflows/own-job.ts) comes right after.
 */
const LOOKUP_GRACE_MS = 5 * 60_000;

/** How long a submitter waits for another request before it asks which answers it must still keep, at first. */
const IDLE_MS = 60_000;
/** The longest it waits between those questions, while requesters may still ask. */
const LONGEST_IDLE_MS = 10 * 60_000;

/** The failure an activity ended with, as the requester rethrows it. */
function failureOf(err: unknown): WriteFailure {
  const cause = err instanceof ActivityFailure ? (err.cause ?? err) : err;
  if (cause instanceof ApplicationFailure)
    return { message: cause.message, type: cause.type ?? null, nonRetryable: cause.nonRetryable ?? false };
  return { message: cause instanceof Error ? cause.message : String(cause), type: null, nonRetryable: false };
}

async function submitter(state: SubmitterState = {}): Promise<void> {
  const kept = new Map(state.answers ?? []);
  const queue: WriteRequest[] = [];
  const waiting = new Map<string, ((a: WriteAnswer) => void)[]>();
  let sending: string | undefined;
  let continuing = false;
  let idleMs = IDLE_MS;

  const answer = (id: string, a: WriteAnswer): void => {
    for (const resolve of waiting.get(id) ?? []) resolve(a);
    waiting.delete(id);
  };
  const known = (id: string): boolean => kept.has(id) || sending === id || queue.some((r) => r.id === id);

  setHandler(
    submitUpdate,
    async (request) => {
      const earlier = kept.get(request.id);
      if (earlier) return earlier.answer;
      if (!known(request.id)) {
        if (request.ifKnown) return { withdrawn: true };
        queue.push(request);
      }
      return new Promise<WriteAnswer>((resolve) =>
        waiting.set(request.id, [...(waiting.get(request.id) ?? []), resolve]),
      );
    },
    {
      // While it makes room to continue as new, a new request is refused: its requester asks again, of the next run.
      validator: (request: WriteRequest) => {
        if (continuing && !known(request.id))
          throw ApplicationFailure.create({
            type: SUBMITTER_CONTINUING,
            message: 'the submitter is continuing as new',
          });
      },
    },
  );
  setHandler(recentJobsQuery, (since) => createdSince(kept, since));
  // The record of the send in progress (one at a time), for its next attempt.
  let sent: { id: string; record: { sentAt: number; mark: unknown } } | undefined;
  setHandler(sentSignal, (id, record) => {
    if (id === sending) sent = { id, record };
  });
  setHandler(sendOfQuery, (id) => (sent?.id === id ? sent.record : null));
  setHandler(requestsQuery, () => ({ sending: sending ?? null, queued: queue.map((r) => r.id) }));
  setHandler(withdrawSignal, (id) => {
    const at = queue.findIndex((r) => r.id === id);
    if (at < 0) return; // being sent, answered, or unknown: its answer stands
    queue.splice(at, 1);
    answer(id, { withdrawn: true });
  });

  for (;;) {
    const now = Date.now();
    for (const [id, k] of kept) if (k.keepUntil <= now) kept.delete(id);
    const request = queue.shift();
    if (request) {
      if (workflowInfo().continueAsNewSuggested) continuing = true;
      sending = request.id;
      const a = await send(request, workflowInfo().workflowId, workflowInfo().runId);
      sending = undefined;
      sent = undefined;
      if (!('withdrawn' in a)) {
        const requester = (request.input as { requester?: Requester }).requester;
        const at = Date.now();
        kept.set(request.id, { answer: a, keepUntil: request.askAgainUntil, at, requester, seenAt: at });
      }
      idleMs = IDLE_MS;
      answer(request.id, a);
      continue;
    }
    if (continuing || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof submitter>({ answers: [...kept] });
    }
    // A request may come in the activation that fires this timer: its handler queues it, so the queue is looked at
    // again before ending (a request after the task started makes the server refuse the completion).
    if (await condition(() => queue.length > 0, idleMs)) continue;
    if (queue.length > 0) continue;
    if (kept.size > 0) {
      await forgetAnswered(kept);
      idleMs = Math.min(idleMs * 2, LONGEST_IDLE_MS);
      continue;
    }
    await condition(allHandlersFinished);
    return;
  }
}

/** Drops the answers whose requesters will not ask again: their workflow is gone, or their activity long ended. */
async function forgetAnswered(kept: Map<string, Kept>): Promise<void> {
  const entries = [...kept].filter(([, k]) => k.requester);
  for (const [id, k] of kept) if (!k.requester) kept.delete(id);
  if (entries.length === 0) return;
  const asking = await ourActivities(CALL).stillAsking(entries.map(([, k]) => k.requester!));
  const now = Date.now();
  entries.forEach(([id, k], i) => {
    if (asking[i]) k.seenAt = now;
    else if (now - k.seenAt > LOOKUP_GRACE_MS) kept.delete(id);
  });
}

/**
 * The jobs this submitter answered with since `since` (epoch ms): never the job of a later request. A lookup that
 * lost its watermark asks (src/activities/lost-answer.ts).
 */
function createdSince(kept: Map<string, Kept>, since: number): string[] {
  const ids: string[] = [];
  for (const { answer, at } of kept.values()) {
    const result = 'result' in answer && at >= since ? (answer.result as { jobId?: unknown } | null) : null;
    if (typeof result?.jobId === 'string') ids.push(result.jobId);
  }
  return ids;
}

/** Sends one request with its own activity; a failure it ends with is its answer. */
async function send(request: WriteRequest, submitterId: string, submitterRunId: string): Promise<WriteAnswer> {
  const activities = activitiesWithin(request.outageToleranceMs).submit as unknown as Record<
    string,
    (input: unknown) => Promise<unknown>
  >;
  const activity = activities[request.activity];
  if (!activity) return { failure: { message: `no activity ${request.activity}`, type: null, nonRetryable: true } };
  try {
    return { result: await activity({ ...request.input, submitterId, submitterRunId }) };
  } catch (err) {
    return { failure: failureOf(err) };
  }
}

export { submitter as 'dataops.submitter' };
