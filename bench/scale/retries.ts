/**
 * The activity attempts our pipelines retried, read from their histories: each retried attempt's start records the
 * failure of the attempt before it. A retry costs an action, the activity's work again and its backoff, and under load
 * it is where a pipeline loses time unseen by the other figures (at N = 1,000 a timed-out question to a new target's
 * submitter failed an attempt of half the profiling waits; issue 40).
 */
import type { temporal } from '@temporalio/proto';

type Event = temporal.api.history.v1.IHistoryEvent;
type Failure = temporal.api.failure.v1.IFailure;

/** A failure and its causes, as one line: "message <- cause <- …". */
const chain = (f: Failure | null | undefined): string =>
  f ? `${f.message ?? ''}${f.cause ? ` <- ${chain(f.cause)}` : ''}` : '';

/** Adds to `into`, for one history, how many attempts of each activity were retried after each failure. */
export function countRetries(events: Event[], into: Map<string, number>): void {
  const types = new Map(events.map((e) => [String(e.eventId), e.activityTaskScheduledEventAttributes?.activityType]));
  for (const e of events) {
    const started = e.activityTaskStartedEventAttributes;
    if (!started || (started.attempt ?? 1) <= 1) continue;
    const key = `${types.get(String(started.scheduledEventId))?.name ?? '?'} after "${chain(started.lastFailure).slice(0, 200)}"`;
    into.set(key, (into.get(key) ?? 0) + 1);
  }
}

/** "N = n: k retried attempts (a per pipeline): activity after "failure" ×c, …", or none. */
export function retryLine(n: number, retried: Map<string, number>): string {
  const all = [...retried.values()].reduce((s, v) => s + v, 0);
  if (!all) return `N = ${n}: none, every activity of every pipeline ran once`;
  const most = [...retried].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ×${v}`);
  return `N = ${n}: ${all} retried attempts (${(all / n).toFixed(2)} per pipeline): ${most.join('; ')}`;
}
