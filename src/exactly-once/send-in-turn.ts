/**
 * The activity a target's submitter (src/exactly-once/workflow/submitter.ts) sends its queued requests with: one batch per
 * activity, every request in it sent in turn, each by the write its own activity makes (a job kind's submission, an
 * order, the cancel of a job whose workflow is gone), with its own phases (write-once.ts). One activity per batch
 * rather than per request: a hand-off between two requests then costs a signal, not an activity task and two workflow
 * tasks.
 *
 * Each answer is recorded at the submitter before its requester (the asking activity, through-submitter.ts) is
 * completed with it, so what a requester hears is what its retry would read there. Before a request leaves, the
 * submitter records it (`sending`, with the answer of the request before it): a retry of
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
  APPLY_ACTIVITY,
  failureOf,
  resumeUpdate,
  sendingUpdate,
  sentSignal,
  type SendInTurnInput,
  type SendRecord,
  type Requester,
  type Turn as Request,
  type WriteAnswer,
} from './messages.js';
import { abortable } from '../api/abortable.js';
import { attemptDeadline } from '../activities/deadline.js';
import { parseInput } from '../activities/errors.js';
import { beat, beatingWhile, note } from '../activities/heartbeats.js';
import { inTraceOf } from '../activities/request-trace.js';
import { CANCELLED_UNSENT, unlessCancelled } from './requester-gone.js';
import { tell, type Write } from './through-submitter.js';
import { Refused, type Phase, type Prior } from './write-once.js';

const Sent = z.object({ sentAt: z.number(), mark: z.unknown() });
const Input = z.object({
  activity: z.string().min(1),
  requests: z
    .array(
      z.object({
        id: z.string().min(1),
        input: z.record(z.string(), z.unknown()),
        sending: Sent.optional(),
        trace: z.record(z.string(), z.string()).optional(),
      }),
    )
    .min(1),
  submitterId: z.string().min(1),
  submitterRunId: z.string().min(1),
  batch: z.number().int().optional(),
});

/** What a request's turn ends with when its requester withdrew it while it waited in the batch: it is not sent. */
const WITHDRAWN = 'RequestWithdrawn';
const withdrawn = (err: unknown): boolean => err instanceof ApplicationFailure && err.type === WITHDRAWN;

/** One request's turn in a batch: what an earlier attempt left of it, and where its phase is recorded. */
export interface Turn {
  prior: Prior<unknown>;
  /** Records the phase in the batch's heartbeat and, for a send, at the submitter, before the request leaves. */
  record: (phase: Phase<unknown>) => Promise<void>;
}

/** Sends one request for its requester: what the write created; a failure is thrown. */
export type SendFor = (input: Record<string, unknown>, turn: Turn) => Promise<unknown>;

/**
 * Kept back from an attempt's end before a request is started: room for its send and for the lookup of a lost answer
 * (at most half the attempt's time). The requests left go back to the submitter's queue, for the next batch.
 */
const ROOM_MS = 10 * 60_000;

const noop = (): void => undefined;

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

/** `sendInTurn`: sends a batch of one submitter's requests in turn, each with `writes[activity].send`. */
export function sendInTurnActivity(writes: Record<string, Pick<Write, 'send'>>) {
  return async function sendInTurn(raw: SendInTurnInput): Promise<[string, WriteAnswer][]> {
    const input = parseInput(Input, raw, 'sendInTurn');
    const send = writes[input.activity]?.send;
    if (!send)
      throw ApplicationFailure.create({ message: `no activity ${input.activity} to send with`, nonRetryable: true });
    const { attempt } = activityInfo();
    const heartbeatDetails: unknown = activityInfo().heartbeatDetails;
    const handle = Context.current().client.workflow.getHandle(input.submitterId, input.submitterRunId);
    const phases: Record<string, unknown> =
      heartbeatDetails && typeof heartbeatDetails === 'object' ? { ...heartbeatDetails } : {};
    // A first attempt knows its requests as the submitter handed them; a retry takes over (from then on the submitter
    // refuses an earlier attempt's sends) and hears which are left, and what they sent.
    const { batch } = input;
    const cancelled = Context.current().cancellationSignal;
    // An update waits for the submitter's workflow task: one that cannot come (its worker is shutting down, this one
    // with it) must not hold this attempt. Given up, nothing is sent: the next attempt resumes from the submitter.
    // Raced with the cancel (its reason, a CancelledFailure), not handed to the client: the worker's connection
    // (NativeConnection) takes no abort signal. Once cancelled, nothing more is asked.
    const ask = <R>(fn: () => Promise<R>): Promise<R> =>
      cancelled.aborted ? Promise.reject(cancelled.reason as Error) : beatingWhile(abortable(fn(), cancelled));
    const requests: Request[] =
      attempt > 1
        ? await ask(() => handle.executeUpdate(resumeUpdate, { args: [{ batch, attempt }] }))
        : input.requests;
    const answers: [string, WriteAnswer][] = [];
    // Each send listens to it until the batch ends (requester-gone.ts, sendSignal): up to 20, not a leak.
    setMaxListeners(requests.length + 10, cancelled);
    const deadline = attemptDeadline();
    const lastStart = deadline - Math.min(ROOM_MS, (deadline - Date.now()) / 2);
    /** The answers not recorded at the submitter yet: the next send's record, or the batch's end, carries them. */
    let unrecorded: [string, WriteAnswer][] = [];
    const requesters = new Map(requests.map((r) => [r.id, (r.input as { requester?: Requester }).requester]));
    const told: Promise<void>[] = [];
    /** Tells the requesters of answers the submitter recorded (not awaited: the batch goes on). */
    const tellAll = (recorded: [string, WriteAnswer][]) => {
      for (const [id, answer] of recorded) told.push(tell(requesters.get(id), answer));
    };
    /** Records the unrecorded answers by the `sent` signal, then tells them; one that fails leaves them (above). */
    const recordLeft = async () => {
      const left = unrecorded;
      unrecorded = [];
      if (left.length > 0)
        await ask(() => handle.signal(sentSignal, { answered: left })).then(() => tellAll(left), noop);
    };
    try {
      for (const r of requests) {
        // The rest go to the next batch: near the attempt's end, or once it was cancelled (its worker shuts down, or
        // the attempt is no longer current: a retry took over, and must not find a send of this one's after its own).
        if (cancelled.aborted && answers.length === 0)
          throw new CancelledFailure('the batch was cancelled: nothing sent');
        if (answers.length > 0 && (Date.now() > lastStart || cancelled.aborted)) break;
        const prior: Prior<unknown> =
          r.sending && !refusedJustBefore(phases[r.id], attempt)
            ? { mayHaveSent: true, sending: r.sending }
            : { mayHaveSent: false };
        const record = async (phase: Phase<unknown>): Promise<void> => {
          // Sent only while its workflow wants it, after whatever the lookup of an earlier send found: an apply while
          // its workflow runs (it is made whatever a cancel says), any other write while it runs uncancelled.
          if (phase.phase === 'sending') await unlessCancelled(requesters.get(r.id), input.activity === APPLY_ACTIVITY);
          phases[r.id] = phase;
          // A refusal only the heartbeat keeps (the next attempt then sends at once); a send the submitter records
          // below, and the next beat while the batch waits carries it: no heartbeat of its own.
          if (phase.phase !== 'sending') return beat(phases);
          note(phases);
          const sending: [string, SendRecord] = [r.id, { sentAt: phase.sentAt, mark: phase.mark }];
          const answered = unrecorded;
          const verdict = await ask(() =>
            handle.executeUpdate(sendingUpdate, { args: [{ answered, sending, batch, attempt }] }),
          );
          unrecorded = [];
          tellAll(answered);
          if (verdict === 'withdrawn')
            throw ApplicationFailure.create({
              type: WITHDRAWN,
              message: 'withdrawn before it was sent',
              nonRetryable: true,
            });
          if (verdict === 'stale') throw new CancelledFailure('a later attempt of the batch sends the rest');
        };
        let answer: WriteAnswer;
        try {
          // In its requester's trace: the service call's span is then the requester's.
          const sent = () => send({ ...r.input, submitterId: input.submitterId }, { prior, record });
          answer = { result: await inTraceOf(r.trace, `send ${input.activity}`, sent) };
        } catch (err) {
          if (withdrawn(err)) {
            delete phases[r.id]; // answered by the submitter
            continue;
          }
          // Its workflow was cancelled or is gone before its turn: withdrawn, unsent.
          const left = err instanceof ApplicationFailure && err.type === CANCELLED_UNSENT;
          if (!left && !final(err)) {
            // The answers before it, not carried by a send yet, are kept; lost, their requests are looked for.
            await recordLeft();
            throw naming(err, r.id);
          }
          answer = left ? { withdrawn: true } : { failure: failureOf(err) };
        }
        answers.push([r.id, answer]);
        unrecorded.push([r.id, answer]);
        delete phases[r.id]; // answered: only an unanswered request's refusal matters to the next attempt
      }
      // The last answers are recorded before their requesters are told, unless a retry took over (it looks for them). A
      // signal that failed leaves them to the batch's result: their requesters' retries read them there.
      if (!cancelled.aborted) await recordLeft();
      return answers;
    } finally {
      await Promise.all(told);
    }
  };
}
