/**
 * The submitter of one target: every write of ours to that target (a kind of job on one table group or suite, the
 * orders of one recipe and variation) goes through it, one at a time, in the order asked. Its id is the target's
 * (`dataops-submit/<profile>/<kind>/<target>`, `dataops-order/…`), so Temporal keeps one per target across every
 * worker and workflow of the namespace. A lost answer can then only be about our own write: the write before it on the
 * target has answered, and the one after it is not sent yet.
 *
 * A requesting activity queues its request by signal-with-start (src/exactly-once/through-submitter.ts), under its own
 * id, and is completed with its answer by the batch that sent it; its retry reads where it stands under the same id
 * and gets the same answer, never a second send. The requests waiting their turn are sent
 * in batches, one activity per batch (src/exactly-once/send-in-turn.ts), each request by the write its own activity makes
 * when no one serialises (its kind's submission, an order): its phases, its lookup of a lost answer stay as they are.
 * Each send is recorded here before it leaves, with the answer of the one before it, which its requester is then
 * told. A crashed worker holds the target only until that activity's heartbeat times out. Answers are kept as long as
 * their requester may ask again, and the queue is carried across continue-as-new; the submitter ends when it has no
 * request and no answer left to keep.
 */
import { allHandlersFinished, condition, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  APPLY_ACTIVITY,
  failedRequestOf,
  failureOf,
  placeQuery,
  recentJobsQuery,
  requestsQuery,
  resumeUpdate,
  sendingUpdate,
  sentSignal,
  submitSignal,
  withdrawSignal,
  type Place,
  type Requester,
  type BatchAttempt,
  type SendProgress,
  type SendRecord,
  type SendVerdict,
  type Turn,
  type WriteAnswer,
} from '../messages.js';
import { activitiesWithin } from '../../workflows/shared.js';
import { answeredJobs, carried, forgetAnswered, type Kept, type Queued } from './submitter-keeps.js';

export interface SubmitterState {
  /** The answers its requesters may still ask for again, with until when. */
  answers?: [string, Kept][];
  /** The requests waiting their turn, in order (at most CARRIED_AT_MOST of those never sent: submitter-keeps.ts). */
  queue?: Queued[];
}

/** How long a submitter waits for another request before it asks which answers it must still keep, at first. */
const IDLE_MS = 60_000;
/** The longest it waits between those questions, while requesters may still ask. */
const LONGEST_IDLE_MS = 10 * 60_000;

/** The most requests one batch sends: a request waits at most for the sends ahead of it in its batch to be cancelled. */
const MOST_IN_A_BATCH = 20;

async function submitter(state: SubmitterState = {}): Promise<void> {
  const kept = new Map(state.answers ?? []);
  const queue: Queued[] = [...(state.queue ?? [])];
  // The batch being sent, by id, and the records of its sends (sendInTurn records each before it leaves).
  const sending = new Map<string, Queued>();
  const records = new Map<string, SendRecord>();
  /** The batch being sent (its number in this run), the latest attempt of it heard from, and what it must not send. */
  let batchNo = 0;
  let batchAttempt = 0;
  const withdrawing = new Set<string>();
  let idleMs = IDLE_MS;
  /** The question whether requesters still ask (forgetAnswered), while it runs. */
  let asking: Promise<void> | undefined;
  /** Moves the requests first in line that go as the first does into the batch being sent, up to MOST_IN_A_BATCH. */
  const take = (): Queued[] => {
    const like = queue[0]!;
    let n = 0;
    while (
      n < Math.min(queue.length, MOST_IN_A_BATCH) &&
      queue[n]!.activity === like.activity &&
      queue[n]!.outageToleranceMs === like.outageToleranceMs
    )
      n++;
    const taken = queue.splice(0, n);
    batchNo++;
    batchAttempt = 0;
    for (const r of taken) {
      sending.set(r.id, r);
      if (r.sending) records.set(r.id, r.sending);
    }
    return taken;
  };

  /** Where a request stands: its answer, else how many requests (of the batch, then of the queue) are ahead of it. */
  const placeOf = (id: string): Place => {
    const earlier = kept.get(id);
    if (earlier) return earlier.answer;
    const inBatch = [...sending.keys()].indexOf(id);
    const inQueue = inBatch < 0 ? queue.findIndex((r) => r.id === id) : -1;
    if (inBatch < 0 && inQueue < 0) return { unknown: true };
    return { queued: inBatch >= 0 ? inBatch : sending.size + inQueue };
  };
  /** A request of the batch answered: kept for its requester (unless withdrawn), whom its batch then tells. */
  const answered = (id: string, a: WriteAnswer): void => {
    const request = sending.get(id);
    if (!request) return;
    sending.delete(id);
    records.delete(id);
    if (!('withdrawn' in a)) {
      const requester = (request.input as { requester?: Requester }).requester;
      kept.set(id, { answer: a, keepUntil: request.askAgainUntil, requester });
    }
  };

  setHandler(submitSignal, (request) => {
    if ('unknown' in placeOf(request.id)) queue.push(request);
  });
  // One withdrawn while in the batch is never sent (its `sending` is refused): asked, it is told so at once, not at its
  // turn.
  setHandler(placeQuery, (id) => (withdrawing.has(id) ? { withdrawn: true } : placeOf(id)));
  setHandler(recentJobsQuery, () => answeredJobs(kept));
  /** The requests of the batch being sent that have no answer yet, each with its send's record if it has one. */
  const turnsLeft = (): Turn[] => [...sending.values()].map((r) => turnOf(r, records.get(r.id)));
  /** Whether a batch's message comes from the batch being sent, from its latest attempt heard from (or a later). */
  const current = (b: BatchAttempt): boolean =>
    sending.size > 0 && (b.batch === undefined || b.batch === batchNo) && b.attempt >= batchAttempt;
  const progressed = (progress: SendProgress): SendVerdict => {
    for (const a of progress.answered ?? []) answered(...a);
    const [id, record] = progress.sending ?? [];
    if (!id || !record || !sending.has(id)) return 'stale';
    if (withdrawing.delete(id)) {
      answered(id, { withdrawn: true });
      return 'withdrawn';
    }
    records.set(id, record);
    return 'go';
  };
  // Before each send the batch asks whether it may leave: one withdrawn meanwhile does not, nor one of an attempt
  // that a retry of the batch took over from.
  setHandler(sendingUpdate, (p) => {
    if (!current(p)) {
      for (const a of p.answered ?? []) answered(...a); // what it sent was answered: that stands
      return 'stale';
    }
    batchAttempt = p.attempt;
    return progressed(p);
  });
  setHandler(resumeUpdate, (b) => {
    if (!current(b)) return [];
    batchAttempt = b.attempt;
    return turnsLeft();
  });
  // The answer a batch that failed had not carried with a send yet (send-in-turn.ts).
  setHandler(sentSignal, (p) => {
    for (const a of p.answered ?? []) answered(...a);
  });
  setHandler(requestsQuery, () => ({ sending: [...sending.keys()], queued: queue.map((r) => r.id) }));
  setHandler(withdrawSignal, (id) => {
    // In the batch and not sent yet: answered `withdrawn` when its turn comes, never sent.
    if (sending.has(id) && !records.has(id)) withdrawing.add(id);
    const at = queue.findIndex((r) => r.id === id);
    // Being sent (or sent by an earlier batch, its answer lost), answered, or unknown: its answer stands.
    if (at < 0 || queue[at]!.sending) return;
    queue.splice(at, 1);
  });

  for (;;) {
    const now = Date.now();
    for (const [id, k] of kept) if (k.keepUntil <= now) kept.delete(id);
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof submitter>({ answers: [...kept], queue: carried(queue) });
    }
    if (queue.length > 0) {
      const batch = take();
      try {
        for (const [id, a] of await sendBatch(batch, batchNo)) answered(id, a);
      } catch (err) {
        // About the request it names; else the last one sent (its send may have failed), else the first. One whose
        // send may have committed (it has a record) is not answered with a failure a retry may mend (an outage that
        // outlasted the batch) while its requester may still ask: it stays first in line, and the next batch looks
        // for its job before anything is sent.
        const named = failedRequestOf(err);
        const left = [...sending.keys()];
        const id = named && sending.has(named) ? named : (left.filter((i) => records.has(i)).at(-1) ?? left[0]);
        const failure = failureOf(err);
        const lookAgain =
          records.has(id ?? '') && !failure.nonRetryable && Date.now() < sending.get(id!)!.askAgainUntil;
        if (id && !lookAgain) answered(id, { failure });
      }
      // Not answered (the batch stopped before it, or failed at another): first in line again, with what it sent;
      // one withdrawn meanwhile and never sent is answered so.
      for (const id of withdrawing) if (!records.has(id)) answered(id, { withdrawn: true });
      withdrawing.clear();
      queue.unshift(...[...sending.values()].map((r) => ({ ...r, sending: records.get(r.id) })));
      sending.clear();
      records.clear();
      idleMs = IDLE_MS;
      continue;
    }
    // A request may come in the activation that fires this timer: its handler queues it, so the queue is looked at
    // again before ending (a request after the task started makes the server refuse the completion).
    if (await condition(() => queue.length > 0, idleMs)) continue;
    if (queue.length > 0) continue;
    if (kept.size > 0) {
      // The question (retried through an outage, for hours) runs beside the queue: a request that comes meanwhile is
      // sent at once.
      // A question that fails (an outage past its tolerance) forgets nothing: the answers keep until their keepUntil.
      const question = (asking ??= forgetAnswered(kept)
        .catch(() => undefined)
        .finally(() => (asking = undefined)));
      const heard = await Promise.race([question.then(() => true), condition(() => queue.length > 0)]);
      if (heard === true) idleMs = Math.min(idleMs * 2, LONGEST_IDLE_MS);
      continue;
    }
    await condition(allHandlersFinished);
    return;
  }
}

/** A request as its batch's activity takes it: with the record of its send, when it may have been sent. */
const turnOf = ({ id, input, trace }: Queued, sending: SendRecord | undefined): Turn => ({
  id,
  input,
  ...(sending ? { sending } : {}),
  ...(trace ? { trace } : {}),
});

/**
 * Sends a batch with one activity (src/exactly-once/send-in-turn.ts): the answers it gave. An import's apply, one large
 * request, keeps the import's timeouts (transfersWithin): an hour, not a submission's half hour.
 */
function sendBatch(batch: Queued[], batchNo: number): Promise<[string, WriteAnswer][]> {
  const { workflowId, runId } = workflowInfo();
  const within = activitiesWithin(batch[0]!.outageToleranceMs);
  return (batch[0]!.activity === APPLY_ACTIVITY ? within.transfer : within.submit).sendInTurn({
    activity: batch[0]!.activity,
    requests: batch.map((r) => turnOf(r, r.sending)),
    submitterId: workflowId,
    submitterRunId: runId,
    batch: batchNo,
  });
}

export { submitter as 'dataops.submitter' };
