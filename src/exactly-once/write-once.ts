/**
 * The one state machine every remote write goes through (a job submission, an order, an apply): its diagram and rules
 * are docs/design/exactly-once.md's. Each attempt records its phase; a certain refusal is sent again at once, and only
 * an outcome that may have committed is looked for, until the settle window after the send has ended.
 */
import { activityInfo } from '@temporalio/activity';
import { z } from 'zod';
import {
  ConnectionFailed,
  NotSentInTime,
  RateLimited,
  RequestAborted,
  ServiceError,
  UnexpectedResponse,
} from '../api/index.js';

/**
 * How long after its stamp (`sentAt`, taken before its record) a send may still leave; later, it is not sent
 * (NotSentInTime, certain). An attempt that stalls after its record (a frozen worker) is retried once its heartbeat
 * times out, and the retry, finding the record, looks until the stamp plus this plus the settle window: a send of the
 * stalled attempt that left after the retry concluded "nothing" would make a second job.
 */
export const LEAVES_WITHIN_MS = 10_000;

/**
 * The phase an attempt records when it ends with nothing outstanding: refused before or at the send, or a lost answer
 * settled with nothing found. It goes with the attempt's failure, so the next attempt sends at once, with no settle
 * window. It names its attempt: a later attempt that started from it repeats it (heartbeats.ts) until it records its
 * own send, and a worker that dies before that send's heartbeat reaches Temporal must not leave it looking current.
 */
export const Refused = z.object({ phase: z.literal('rejected'), attempt: z.number().int().optional() });

/** The record of an attempt that ends with nothing outstanding. */
export const refused = (): z.infer<typeof Refused> => ({ phase: 'rejected', attempt: activityInfo().attempt });

/** Connection failures that happen before a byte of the request left. */
const BEFORE_CONNECT = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'];

/**
 * Whether a failed write certainly changed nothing: it failed while getting a token or was too late to leave (never
 * sent), the connection was refused, or the service answered with a refusal (a 4xx, a 429). Everything else may have
 * committed: a timeout, a reset, an abort after the send, a 5xx, a 2xx whose body is garbled or breaks its schema, and
 * any error we do not know.
 */
export function certainlyNotCommitted(err: unknown): boolean {
  if (!(err instanceof ServiceError)) return false;
  if (err.auth || err instanceof NotSentInTime || err instanceof RateLimited) return true;
  if (err instanceof ConnectionFailed) return BEFORE_CONNECT.includes(err.code ?? '');
  // A refusal is an answer that is not retryable; a 2xx that breaks its schema is not a refusal.
  return !err.retryable && !(err instanceof UnexpectedResponse) && !(err instanceof RequestAborted);
}

/** A send: when it left, and what was there before it (the watermark the lookup compares with). */
export interface Sent<M> {
  sentAt: number;
  mark: M;
}

/**
 * What an earlier attempt may have left: certainly nothing, or a send, as its submitter recorded it before it left
 * (a send is never made without that record, so one that may have left is always known with its mark).
 */
export type Prior<M> = { mayHaveSent: false } | { mayHaveSent: true; sending: Sent<M> };

/** The phase an attempt records. */
export type Phase<M> = ({ phase: 'sending' } & Sent<M>) | z.infer<typeof Refused>;

/** Whether the write in progress may have left something behind: from its send until a lookup proves otherwise. */
export interface Outstanding {
  value: boolean;
}

export interface Write<M, R> {
  prior: Prior<M>;
  /** Notes what is there before the send. A failure here comes before the send. */
  mark: () => Promise<M>;
  /** Sends; a request that would leave after `leaveBy` (epoch ms) is not sent (the client's `leaveBy`). */
  send: (leaveBy: number) => Promise<R>;
  /**
   * What the send (`sending`) created, once it can no longer commit; undefined when it created nothing. Throws an `…OutcomeUnknown` failure when that cannot be told. `cause`: how this
   * attempt's own send failed (absent for an earlier attempt's).
   */
  find: (sending: Sent<M>, cause?: unknown) => Promise<R | undefined>;
  /**
   * Records the phase where the next attempt reads it (the heartbeat details). A send waits for a promise it returns:
   * a record that must be durable before the request leaves (a submitter's, see submitter.ts).
   */
  record: (phase: Phase<M>) => void | Promise<void>;
}

/**
 * Runs `fn`; a failure while nothing is outstanding is recorded as a refusal before it ends the attempt, so the next
 * attempt sends at once. Wraps a write and whatever comes before it in the same attempt (a lock, a preview).
 */
export async function recordingRefusal<T>(
  outstanding: Outstanding,
  record: (phase: z.infer<typeof Refused>) => void | Promise<void>,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!outstanding.value) await record(refused());
    throw err;
  }
}

/** Writes once: looks for what an earlier attempt may have sent, else marks, records the send, and sends. */
export async function writeOnce<M, R>(w: Write<M, R>, outstanding: Outstanding): Promise<R> {
  outstanding.value = w.prior.mayHaveSent;
  if (w.prior.mayHaveSent) {
    // It may have left as late as its stamp allowed.
    const { sending: was } = w.prior;
    const found = await w.find({ ...was, sentAt: was.sentAt + LEAVES_WITHIN_MS });
    if (found !== undefined) return found;
    outstanding.value = false; // settled: what an earlier attempt sent created nothing
  }
  const mark = await w.mark();
  const sending = { sentAt: Date.now(), mark };
  outstanding.value = true;
  await w.record({ phase: 'sending', ...sending });
  const leaveBy = sending.sentAt + LEAVES_WITHIN_MS;
  try {
    return await w.send(leaveBy);
  } catch (err) {
    if (certainlyNotCommitted(err)) {
      outstanding.value = false;
      throw err;
    }
    // Its own lookup waits out the settle window from the latest time the request may have left: now, or its time to
    // leave. Not from the stamp: a record or a login that took seconds (a busy submitter) would end the window before
    // a held request could commit, and it would be sent again (explorer seed 45903: a 5.6 s record, a 2 s hold).
    const found = await w.find({ ...sending, sentAt: Math.min(Date.now(), leaveBy) }, err);
    if (found !== undefined) return found;
    outstanding.value = false;
    throw err; // nothing was created: the next attempt sends again at once
  }
}
