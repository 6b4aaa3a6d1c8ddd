/**
 * The activity a target's submitter (src/workflows/submitter.ts) sends its queued requests with: one batch per
 * activity, every request in it sent in turn, each by the write its own activity makes (a job kind's submission, an
 * order), with its own phases (write-once.ts). One activity per batch rather than per request: a hand-off between two
 * requests then costs a signal, not an activity task and two workflow tasks.
 *
 * A send's last step (whether its requester is still there, and the undo of what it created if not) runs while the
 * next request takes its watermark: one round trip fewer per send than running them in turn.
 *
 * Before a request leaves, the submitter records it (`sent`, with the answer of the request before it): a retry of
 * the batch, after its worker died, asks the submitter (`sends`) which requests are answered (done), which were sent
 * (looked for from their watermark) and which were not (sent at once). A request that fails for good is answered with
 * its failure and the batch goes on; one that may succeed on a retry ends the attempt, naming itself, and Temporal
 * retries the batch from it, with its backoff.
 */
import { setMaxListeners } from 'node:events';
import { activityInfo, CancelledFailure, Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { NON_RETRYABLE } from '../contract/activity-options.js';
import {
  failureOf,
  sendsQuery,
  sentSignal,
  type SendInTurnInput,
  type SendRecord,
  type Turn as Request,
  type WriteAnswer,
} from '../contract/submitter.js';
import { attemptDeadline } from './deadline.js';
import { parseInput } from './errors.js';
import { beat } from './keep-alive.js';
import { Refused, type Phase, type Prior } from './write-once.js';

const Sent = z.object({ sentAt: z.number(), mark: z.unknown() });
const Input = z.object({
  activity: z.string().min(1),
  requests: z
    .array(z.object({ id: z.string().min(1), input: z.record(z.string(), z.unknown()), sending: Sent.optional() }))
    .min(1),
  submitterId: z.string().min(1),
  submitterRunId: z.string().min(1),
});

/** One request's turn in a batch: what an earlier attempt left of it, and where its phase is recorded. */
export interface Turn {
  prior: Prior<unknown>;
  /** Records the phase in the batch's heartbeat and, for a send, at the submitter, before the request leaves. */
  record: (phase: Phase<unknown>) => Promise<void>;
}

/**
 * Sends one request for its requester; a failure is thrown. What the write created comes in `finished`, once the send's
 * last step (whether its requester is still there, requester-gone.ts) has run: the batch takes the next request's
 * watermark meanwhile, and its requester hears the outcome with the next send's record.
 */
export type SendFor = (input: Record<string, unknown>, turn: Turn) => Promise<{ finished: Promise<unknown> }>;

/** A request's answer once its last step has run, or the failure that ends the attempt (a retry may mend it). */
type Settled = { answer: WriteAnswer } | { thrown: unknown };

/**
 * Kept back from an attempt's end before a request is started: room for its send and for the lookup of a lost answer
 * (at most half the attempt's time). The requests left go back to the submitter's queue, for the next batch.
 */
const ROOM_MS = 10 * 60_000;

/** Whether a failure is the request's answer: retrying cannot change it. */
const final = (err: unknown): boolean =>
  err instanceof ApplicationFailure &&
  (err.nonRetryable || (NON_RETRYABLE as readonly string[]).includes(err.type ?? ''));

/** A failure that a retry may mend, naming its request; a cancellation stays one. */
function naming(err: unknown, request: string): unknown {
  if (err instanceof CancelledFailure) return err;
  if (!(err instanceof ApplicationFailure))
    return ApplicationFailure.create({
      message: err instanceof Error ? err.message : String(err),
      details: [{ request }],
    });
  // Its own type, message and Retry-After: only the request it is about is added.
  return new ApplicationFailure(err.message, err.type, false, [{ request }], err, err.nextRetryDelay, err.category);
}

/** The previous attempt recorded this request's refusal: it certainly created nothing (write-once.ts). */
const refusedJustBefore = (phase: unknown, attempt: number): boolean =>
  Refused.safeParse(phase).data?.attempt === attempt - 1;

/** `sendInTurn`: sends a batch of one submitter's requests in turn, each with `senders[activity]`. */
export function sendInTurnActivity(senders: Record<string, SendFor>) {
  return async function sendInTurn(raw: SendInTurnInput): Promise<[string, WriteAnswer][]> {
    const input = parseInput(Input, raw, 'sendInTurn');
    const send = senders[input.activity];
    if (!send)
      throw ApplicationFailure.create({ message: `no activity ${input.activity} to send with`, nonRetryable: true });
    const { attempt } = activityInfo();
    const heartbeatDetails: unknown = activityInfo().heartbeatDetails;
    const handle = Context.current().client.workflow.getHandle(input.submitterId, input.submitterRunId);
    const phases: Record<string, unknown> =
      heartbeatDetails && typeof heartbeatDetails === 'object' ? { ...heartbeatDetails } : {};
    // A first attempt knows its requests as the submitter handed them; a retry asks which are left, and what they sent.
    const requests: Request[] = attempt > 1 ? await handle.query(sendsQuery) : input.requests;
    const cancelled = Context.current().cancellationSignal;
    // Each send listens to it until the batch ends (requester-gone.ts, sendSignal): up to 20, not a leak.
    setMaxListeners(requests.length + 10, cancelled);
    const deadline = attemptDeadline();
    const lastStart = deadline - Math.min(ROOM_MS, (deadline - Date.now()) / 2);
    const answered: [string, Promise<Settled>][] = [];
    /** The answer a send's record carries, of the request sent before it: a failure a retry may mend is thrown. */
    let before: [string, Promise<Settled>] | undefined;
    const settledBefore = async (): Promise<[string, WriteAnswer] | undefined> => {
      if (!before) return undefined;
      const settled = await before[1];
      if ('thrown' in settled) throw settled.thrown;
      return [before[0], settled.answer];
    };
    for (const r of requests) {
      // The rest go to the next batch: near the attempt's end, or once it was cancelled (its worker shuts down, or
      // the attempt is no longer current: a retry took over, and must not find a send of this one's after its own).
      if (cancelled.aborted && answered.length === 0)
        throw new CancelledFailure('the batch was cancelled: nothing sent');
      if (answered.length > 0 && (Date.now() > lastStart || cancelled.aborted)) break;
      const prior: Prior<unknown> =
        r.sending && !refusedJustBefore(phases[r.id], attempt)
          ? { mayHaveSent: true, sending: r.sending }
          : { mayHaveSent: false };
      const record = async (phase: Phase<unknown>): Promise<void> => {
        phases[r.id] = phase;
        beat(phases);
        if (phase.phase !== 'sending') return;
        const sending: [string, SendRecord] = [r.id, { sentAt: phase.sentAt, mark: phase.mark }];
        await handle.signal(sentSignal, { answered: await settledBefore(), sending });
        before = undefined;
      };
      let settled: Promise<Settled>;
      try {
        const { finished } = await send({ ...r.input, submitterId: input.submitterId }, { prior, record });
        settled = finished.then(
          (result) => ({ answer: { result } }),
          (err: unknown) => (final(err) ? { answer: { failure: failureOf(err) } } : { thrown: naming(err, r.id) }),
        );
      } catch (err) {
        const earlier = before && (await before[1]);
        // The request before it failed in its last step (its record threw that failure): the attempt ends, naming it.
        if (earlier && 'thrown' in earlier) throw earlier.thrown;
        if (!final(err)) {
          // The answer before it, not carried by a send yet, is kept; lost, that request is looked for.
          if (earlier) await handle.signal(sentSignal, { answered: [before![0], earlier.answer] }).catch(() => {});
          throw naming(err, r.id);
        }
        settled = Promise.resolve({ answer: { failure: failureOf(err) } });
      }
      answered.push([r.id, settled]);
      before = [r.id, settled];
      delete phases[r.id]; // answered: only an unanswered request's refusal matters to the next attempt
    }
    const answers: [string, WriteAnswer][] = [];
    for (const [id, settling] of answered) {
      const settled = await settling;
      if ('thrown' in settled) throw settled.thrown;
      answers.push([id, settled.answer]);
    }
    return answers;
  };
}
