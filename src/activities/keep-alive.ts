/**
 * Heartbeats that keep a running activity visibly alive. Every activity body runs under `keepAlive`: when its options
 * carry a heartbeat timeout, a ticker re-sends the latest details a few times per timeout, so a worker that dies in
 * the middle of a long call (a submission, a summary, a large import) is noticed within that timeout instead of the
 * start-to-close timeout. Activities record their own progress with `beat`, which the ticker then repeats.
 */
import { Context } from '@temporalio/activity';

const latest = new WeakMap<Context, { details: unknown; ticking?: boolean }>();

/** Records heartbeat details for the current activity (and sends them); the ticker repeats the latest ones. */
export function beat(details: unknown): void {
  const context = Context.current();
  latest.set(context, { details, ticking: latest.get(context)?.ticking ?? false });
  context.heartbeat(details);
}

/**
 * Records heartbeat details that need not reach Temporal at once (a wait's poll count): the ticker sends them with
 * its next tick, so a poll does not cost a heartbeat of its own (each one is a write on the server; the first would
 * otherwise go at once, before the SDK's throttle). Sent at once when no ticker runs. What a retry must not repeat
 * (a submission's phase, a status report counted against its budget) goes with `beat`.
 */
export function note(details: unknown): void {
  const entry = latest.get(Context.current());
  if (entry?.ticking) entry.details = details;
  else beat(details);
}

/** Runs `fn` with a heartbeat ticker when the activity has a heartbeat timeout. */
export async function keepAlive<T>(fn: () => Promise<T>): Promise<T> {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return fn(); // not inside an activity (a unit test of the body)
  }
  const timeoutMs = context.info.heartbeatTimeoutMs;
  if (!timeoutMs) return fn();
  // Until the body beats, repeat what the previous attempt left, so a retry never erases its own resume point.
  latest.set(context, { details: context.info.heartbeatDetails, ticking: true });
  const every = Math.max(200, Math.min(5_000, Math.floor(timeoutMs / 4)));
  const timer = setInterval(() => context.heartbeat(latest.get(context)?.details), every);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}
