/** Reading a workflow history's activities: which event an activity's end belongs to, and what was left in flight. */
import type { temporal } from '@temporalio/proto';

type Event = temporal.api.history.v1.IHistoryEvent;

/** For an activity's end (completed, failed, cancelled or timed out): the id of the event that scheduled it. */
export function scheduledIdOfEnd(e: Event): string | undefined {
  const ended =
    e.activityTaskCompletedEventAttributes ??
    e.activityTaskFailedEventAttributes ??
    e.activityTaskCanceledEventAttributes ??
    e.activityTaskTimedOutEventAttributes;
  return ended ? String(ended.scheduledEventId) : undefined;
}

/** The types of the activities the history scheduled and never ended: in flight when it closed. */
export function activitiesInFlight(events: Event[]): string[] {
  const ended = new Set(events.map(scheduledIdOfEnd));
  return events.flatMap((e) =>
    e.activityTaskScheduledEventAttributes && !ended.has(String(e.eventId))
      ? [e.activityTaskScheduledEventAttributes.activityType?.name ?? '']
      : [],
  );
}
