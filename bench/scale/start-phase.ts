/**
 * The start of a pipeline, step by step, from its history: the phase in which ours loses most to the loop (phases.ts).
 * The same steps are read from the Temporal floor's histories (floor-workflow.ts), whose first activity is its first
 * "job": what the start costs any workflow on this machine, against what ours adds to it.
 *
 * Every mark is in epoch ms: the server's event times, and for ours the service's `created_at` of the first job (one
 * machine, one clock).
 */
import { optionalTsToMs } from '@temporalio/common/lib/time.js';
import type { temporal } from '@temporalio/proto';
import { meanP99 } from './measure.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** When each step of a pipeline's start ended. */
export interface StartMarks {
  /** The server recorded the start (WorkflowExecutionStarted). */
  started: number;
  /** The worker picked up the first workflow task. */
  taskPickedUp: number;
  /** The worker answered it. */
  taskDone: number;
  /** The first activity (ours: the submission, or the wait that submits; the floor's: its first step) began on the worker. */
  activityBegan: number;
  /** The first job was created (ours); the floor's first step began then. */
  firstJob: number;
}

/** The marks of one history; `firstJobCreatedAt` (ISO) for ours, none for the floor. Undefined when incomplete. */
export function startMarks(events: HistoryEvent[], firstJobCreatedAt?: string | null): StartMarks | undefined {
  const at = (pick: (e: HistoryEvent) => unknown) => optionalTsToMs(events.find((e) => pick(e))?.eventTime) ?? NaN;
  const activityBegan = at((e) => e.activityTaskStartedEventAttributes);
  const marks: StartMarks = {
    started: at((e) => e.workflowExecutionStartedEventAttributes),
    taskPickedUp: at((e) => e.workflowTaskStartedEventAttributes),
    taskDone: at((e) => e.workflowTaskCompletedEventAttributes),
    activityBegan,
    firstJob: firstJobCreatedAt === undefined ? activityBegan : Date.parse(firstJobCreatedAt ?? ''),
  };
  return Object.values(marks).every(Number.isFinite) ? marks : undefined;
}

const STEPS = [
  ['start accepted', (m: StartMarks, t0: number) => m.started - t0],
  ['first task queued', (m: StartMarks) => m.taskPickedUp - m.started],
  ['first task', (m: StartMarks) => m.taskDone - m.taskPickedUp],
  ['activity queued', (m: StartMarks) => m.activityBegan - m.taskDone],
  ['activity to the job', (m: StartMarks) => m.firstJob - m.activityBegan],
] as const;

/** Each step's durations, in ms, over the pipelines of a batch started at `t0`. */
export function startSteps(t0: number, marks: StartMarks[]): Record<string, number[]> {
  return Object.fromEntries(STEPS.map(([name, span]) => [name, marks.map((m) => span(m, t0))]));
}

/** One line per N: each step's mean / p99 in ms, ours against the floor's (when it ran). */
export function startLine(n: number, ours: Record<string, number[]>, floor?: Record<string, number[]>): string {
  const cell = (xs: number[] | undefined) => (xs?.length ? meanP99(xs) : '–');
  const steps = STEPS.map(([name]) => `${name} ${cell(ours[name])}${floor ? ` (floor ${cell(floor[name])})` : ''}`);
  return `N = ${n}: ${steps.join('; ')}`;
}
