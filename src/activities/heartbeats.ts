/**
 * Heartbeats, through the SDK's throttle only: nothing ticks on its own. An activity beats as it makes progress
 * (`beat`, with the details its next attempt resumes from; `note` keeps details for the next beat without sending),
 * and again while it waits on something: a request to the service (every request made under `heartbeating`), a sleep
 * (`rest`), a call to Temporal (`beatingWhile`), every quarter of its heartbeat timeout (at most 5 s). So a worker that
 * dies mid-wait is noticed within the timeout, and a cancel reaches the activity at its next heartbeat. The SDK sends
 * at most one heartbeat per throttle interval (80 % of the timeout, at most DATAOPS_HEARTBEAT_THROTTLE_MS): the latest.
 */
import { Context } from '@temporalio/activity';
import { withRequestScope } from '../api/request-scope.js';

/** What the activity last beat (until it beats, what the previous attempt left: its resume point), and when. */
interface Beats {
  details: unknown;
  at: number;
}

const beats = new WeakMap<Context, Beats>();

function beatsOf(context: Context): Beats {
  let entry = beats.get(context);
  if (!entry) beats.set(context, (entry = { details: context.info.heartbeatDetails, at: Date.now() }));
  return entry;
}

/** The current activity's context; none outside an activity (a unit test of a body). */
function current(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/** Records heartbeat details for the current activity and sends them (through the SDK's throttle). */
export function beat(details: unknown): void {
  const context = Context.current();
  Object.assign(beatsOf(context), { details, at: Date.now() });
  context.heartbeat(details);
}

/**
 * Records heartbeat details that need not reach Temporal at once (a wait's poll count, a send the submitter records):
 * the next beat while the activity waits carries them, so they cost no heartbeat of their own. Sent at once where
 * nothing would carry them (no heartbeat timeout: its waits do not beat). What a retry must not repeat goes with `beat`.
 */
export function note(details: unknown): void {
  const context = current();
  if (!context) return;
  if (sliceOf(context)) beatsOf(context).details = details;
  else beat(details);
}

/**
 * How long a wait goes between beats: a quarter of the heartbeat timeout, at most 5 s (a cancel reaches the activity
 * with the answer to a heartbeat the SDK sends, so the throttle, not this, sets how soon). None without a timeout.
 */
function sliceOf(context: Context): number | undefined {
  const timeoutMs = context.info.heartbeatTimeoutMs;
  return timeoutMs ? Math.max(50, Math.min(5_000, Math.floor(timeoutMs / 4))) : undefined;
}

const SLICE = Symbol('slice');

/** Awaits `p`, beating again with the latest details whenever a slice has passed since the last beat. */
export async function beatingWhile<T>(p: Promise<T>): Promise<T> {
  const context = current();
  const slice = context && sliceOf(context);
  if (!context || !slice) return p;
  const entry = beatsOf(context);
  for (;;) {
    const due = entry.at + slice - Date.now();
    if (due <= 0) {
      entry.at = Date.now();
      context.heartbeat(entry.details);
      continue;
    }
    // A plain timer, cleared once `p` settles: an aborted timers/promises sleep would build a DOMException and an
    // AbortError for every request an activity makes.
    let timer: NodeJS.Timeout | undefined;
    const sliced = new Promise<typeof SLICE>((resolve) => (timer = setTimeout(resolve, due, SLICE)));
    try {
      const settled = await Promise.race([p, sliced]);
      if (settled !== SLICE) return settled;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Sleeps `ms` (the activity's own sleep: a cancel ends it as a cancellation), beating while it sleeps. */
export const rest = (ms: number): Promise<void> => beatingWhile(Context.current().sleep(ms));

/** Runs an activity body so that every request it makes to the service beats while in flight. */
export function heartbeating<T>(fn: () => Promise<T>): Promise<T> {
  return current() ? withRequestScope(beatingWhile, fn) : fn();
}
