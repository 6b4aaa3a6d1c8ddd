/**
 * `dataops schedule trigger`: runs a schedule's action now, then tells what the scheduler made of it, from the
 * schedule's own counters (a run taken, skipped or buffered for overlap, dropped from a full buffer), never from a
 * guess: a trigger whose run is not seen in time says so.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { ScheduleDescription, ScheduleHandle, ScheduleOverlapPolicy } from '@temporalio/client';

/** How long a trigger waits to see what became of its run. */
export const TRIGGER_SEEN_WITHIN_MS = 10_000;

export type TriggerOutcome = 'started' | 'skipped' | 'buffered' | 'dropped' | 'unseen';

export interface Triggered {
  outcome: TriggerOutcome;
  /** The run it started (`started` only). */
  workflowId: string | null;
}

/** The counters a trigger moves; the buffer's are only in the raw description. */
function counters(d: ScheduleDescription) {
  return {
    taken: d.info.numActionsTaken,
    skipped: d.info.numActionsSkippedOverlap,
    buffered: Number(d.raw.info?.bufferSize ?? 0),
    dropped: Number(d.raw.info?.bufferDropped ?? 0),
  };
}

/**
 * Triggers the schedule under `overlap` and waits, up to TRIGGER_SEEN_WITHIN_MS, for a counter to move from where
 * `described` (read just before, for the schedule's own policy) left them.
 */
export async function triggerAndSee(
  handle: ScheduleHandle,
  overlap: ScheduleOverlapPolicy,
  described: ScheduleDescription,
): Promise<Triggered> {
  const before = counters(described);
  await handle.trigger(overlap);
  const until = Date.now() + TRIGGER_SEEN_WITHIN_MS;
  for (;;) {
    const d = await handle.describe();
    const now = counters(d);
    if (now.taken > before.taken)
      return { outcome: 'started', workflowId: d.info.recentActions.at(-1)?.action.workflow.workflowId ?? null };
    if (now.skipped > before.skipped) return { outcome: 'skipped', workflowId: null };
    if (now.dropped > before.dropped) return { outcome: 'dropped', workflowId: null };
    if (now.buffered > before.buffered) return { outcome: 'buffered', workflowId: null };
    if (Date.now() >= until) return { outcome: 'unseen', workflowId: null };
    await delay(200);
  }
}

/** What the CLI prints of it. */
export function triggerText(scheduleId: string, policy: string, t: Triggered): string {
  const head = `triggered ${scheduleId}:`;
  switch (t.outcome) {
    case 'started':
      return `${head} started ${t.workflowId ?? '(its id was not listed)'}`;
    case 'skipped':
      return `${head} skipped, a run is still going (overlap ${policy})`;
    case 'buffered':
      return `${head} buffered, it starts when the run going ends (overlap ${policy})`;
    case 'dropped':
      return `${head} dropped, the schedule's buffer is full (overlap ${policy})`;
    case 'unseen':
      return (
        `${head} no run seen within ${TRIGGER_SEEN_WITHIN_MS / 1000} s. A run started in the same second has the ` +
        `workflow id this one would take (a scheduled run's id ends with that second), and the server refuses the ` +
        `second; else the scheduler is behind. dataops schedule describe ${scheduleId} shows its runs`
      );
  }
}
