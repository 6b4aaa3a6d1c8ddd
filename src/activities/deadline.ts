/**
 * The optional reads a wait makes once its job has ended (a summary, the score, the generation follow-up) stop short
 * of the activity's own deadline. An attempt that outlived its start-to-close or schedule-to-close timeout would be
 * reported as a timed-out wait, and the workflow would then fail a job that had completed, and cancel its follow-up.
 * So the reads share one budget, up to a margin before the earlier of the two timeouts; when it is spent, the read in
 * flight is aborted and the wait returns what it has. What it could not read the workflow reads itself. For the same
 * reason, the deferrable wait schedules another attempt only when it fits before the activity's end.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { beatingWhile } from './heartbeats.js';

/** Kept back from the deadline: enough to return the result (the read in flight is aborted, not awaited). */
export const DEADLINE_MARGIN_MS = 2_000;

/** When the activity, all attempts included, must have closed (epoch ms); Infinity without a schedule-to-close. */
function activityEnd(info: Context['info']): number {
  return info.scheduleToCloseTimeoutMs > 0 ? info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs : Infinity;
}

/** When this attempt must have returned, less the margin (epoch ms); Infinity when it has no timeout. */
export function attemptDeadline(context: Context = Context.current()): number {
  const info = context.info;
  const ends = [
    activityEnd(info),
    // Counted from the attempt's scheduling rather than its start: a little earlier, never later.
    info.startToCloseTimeoutMs > 0 ? info.currentAttemptScheduledTimestampMs + info.startToCloseTimeoutMs : Infinity,
  ];
  return Math.min(...ends) - DEADLINE_MARGIN_MS;
}

/**
 * Whether one more attempt, `delayMs` from now, would still start and return before the activity's
 * schedule-to-close deadline. Past it the wait would time out, and a completed job would be reported as one whose
 * wait ran out.
 */
export function roomForAnotherAttempt(delayMs: number, context: Context = Context.current()): boolean {
  return Date.now() + delayMs + 2 * DEADLINE_MARGIN_MS < activityEnd(context.info);
}

/** The longest delay setTimeout takes; a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The abort signal and sleep of reads that end at the deadline or at the activity's cancellation. */
export interface Budget {
  signal: AbortSignal;
  sleep: (ms: number) => Promise<void>;
  /** The deadline has come (rather than a cancel): what was not read is left to the workflow. */
  spent: () => boolean;
  /** Stops the budget's timer. */
  close: () => void;
}

export function readBudget(context: Context = Context.current()): Budget {
  const deadline = new AbortController();
  const left = attemptDeadline(context) - Date.now();
  const near = () => deadline.abort(new Error('the wait is near its own deadline'));
  let timer: NodeJS.Timeout | undefined;
  if (left <= 0) near();
  // A deadline further away than a timer can hold (about 24.8 days) is one no read reaches.
  else if (left <= MAX_TIMER_MS) timer = setTimeout(near, left);
  return {
    signal: AbortSignal.any([context.cancellationSignal, deadline.signal]),
    // The activity's own sleep, so that a cancel still ends it as a cancellation; cut short at the deadline.
    sleep: (ms) => beatingWhile(Promise.race([context.sleep(ms), delay(ms, undefined, { signal: deadline.signal })])),
    spent: () => deadline.signal.aborted && !context.cancellationSignal.aborted,
    close: () => clearTimeout(timer),
  };
}
