/**
 * Waiting out a request the service may still be holding. After a send whose answer was lost, what it created is
 * looked for at once, then again until `settleMs` after sending, when a held request can no longer commit; only
 * then may anything be sent again. Shared by job submissions and order creation.
 */
import { activityInfo, CancelledFailure } from '@temporalio/activity';
import { z } from 'zod';

/**
 * The phase an attempt records when it ends with nothing outstanding: refused before or at the send, or a lost answer
 * settled with nothing found. It goes with the attempt's failure, so the next attempt sends at once, with no settle
 * window. It names its attempt: a later attempt that started from it repeats it (keep-alive.ts) until it records its
 * own send, and a worker that dies before that send's heartbeat reaches Temporal must not leave it looking current.
 */
export const Refused = z.object({ phase: z.literal('rejected'), attempt: z.number().int().optional() });

/** The record of an attempt that ends with nothing outstanding. */
export const refused = (): z.infer<typeof Refused> => ({ phase: 'rejected', attempt: activityInfo().attempt });

/**
 * Whether the previous attempt certainly created nothing: the first attempt has no previous one, and a later one
 * trusts only a refusal that the attempt just before it recorded (an untagged one, from before this rule, is not
 * trusted: the cost is one settle window).
 */
export function nothingOutstanding(recorded: unknown): boolean {
  const { attempt } = activityInfo();
  if (attempt === 1) return true;
  const r = Refused.safeParse(recorded).data;
  return r?.attempt === attempt - 1;
}

export interface Cadence {
  /** Pause before the second look. */
  firstMs: number;
  /** Pause between later looks. */
  everyMs: number;
}

/**
 * Calls `look(last)` until it returns a result, or until the look made once `settleMs` have passed since `sentAt`
 * (`last` true); then undefined means nothing was created. Sleeps in between (the activity's ticker heartbeats) until
 * `signal` aborts.
 */
export async function lookUntilSettled<T>(
  sentAt: number,
  settleMs: number,
  cadence: Cadence,
  signal: AbortSignal,
  look: (last: boolean) => Promise<T | undefined>,
): Promise<T | undefined> {
  for (let n = 0; ; n++) {
    const left = sentAt + settleMs - Date.now();
    const found = await look(left <= 0);
    if (found !== undefined || left <= 0) return found;
    await pause(Math.min(left, n === 0 ? cadence.firstMs : cadence.everyMs), signal);
  }
}

/** Sleeps `ms`, or until `signal` aborts (a CancelledFailure). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(new CancelledFailure('activity cancelled while settling a submission'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
}
