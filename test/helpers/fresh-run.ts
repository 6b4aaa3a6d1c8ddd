/**
 * One workflow run on a fresh simulator and a project worker of its own, for tests that need a simulator's first-run
 * behaviour (TestGen queues a generation job after a table group's first profiling run) or its own variants: how it
 * ended, its history and its final progress.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { temporal } from '@temporalio/proto';
import { ownName, progressQuery, type Progress } from '../../src/contract/index.js';
import type { RunningSimulator, SimulatorOptions } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from './activities.js';
import { startTestSimulator } from './sim.js';

type Event = temporal.api.history.v1.IHistoryEvent;

export interface FreshRun<R, A> {
  /** The workflow's result, when it completed. */
  result: R | undefined;
  /** What `handle.result()` threw, when it did not. */
  error: unknown;
  /** What `act` returned. */
  acted: A;
  events: Event[];
  /** The activity types the workflow scheduled, in order. */
  activities: string[];
  progress: Progress;
  /** The simulator, closed by now; its controls still answer. */
  sim: RunningSimulator;
}

/** Every activity scheduled in `events`, in order, by its own name (ownName). */
export const activityTypes = (events: Event[]): string[] =>
  events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []).map(ownName);

/** The activities that create a job or an order (each holds its target's lock while it runs). */
const SUBMISSIONS = new Set(['submitProfilingRun', 'submitTestRun', 'submitTestGeneration', 'runOrder']);

/** The activity types scheduled in `events`, in order: the reads and waits, submissions left out. */
export const scheduledActivities = (events: Event[]): string[] =>
  activityTypes(events).filter((n) => !SUBMISSIONS.has(n));

/**
 * Starts `workflow` with `input` on a fresh simulator (`prepare`d first), runs `act` while it runs, and waits for it
 * to end.
 */
export async function runOnFreshSimulator<R, A = undefined>(
  env: TestWorkflowEnvironment,
  o: {
    workflow: string;
    input: Record<string, unknown>;
    simulator: SimulatorOptions;
    idPrefix: string;
    prepare?: (sim: RunningSimulator) => void;
    act?: (sim: RunningSimulator, handle: { id: string; cancel: () => Promise<unknown> }) => Promise<A>;
  },
): Promise<FreshRun<R, A>> {
  const { sim } = await startTestSimulator(o.simulator);
  try {
    o.prepare?.(sim);
    return await withProjectWorker(env, await simDeps(sim), async (taskQueue) => {
      const handle = await env.client.workflow.start(o.workflow, {
        taskQueue,
        workflowId: `${o.idPrefix}-${taskQueue}`,
        args: [o.input],
      });
      const acted = (await o.act?.(sim, { id: handle.workflowId, cancel: () => handle.cancel() })) as A;
      const ending = await handle.result().then(
        (result: R) => ({ result, error: undefined }),
        (error: unknown) => ({ result: undefined, error }),
      );
      const events = (await handle.fetchHistory()).events ?? [];
      return {
        ...ending,
        acted,
        events,
        activities: scheduledActivities(events),
        progress: await handle.query(progressQuery),
        sim,
      };
    });
  } finally {
    await sim.close();
  }
}
