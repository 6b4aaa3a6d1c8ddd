/**
 * Waiting out a request the service may still be holding. After a send whose answer was lost, what it created is
 * looked for at once, then again until `settleMs` after sending, when a held request can no longer commit; only
 * then may anything be sent again. Shared by job submissions and order creation (write-once.ts).
 */
import { CancelledFailure } from '@temporalio/activity';

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
