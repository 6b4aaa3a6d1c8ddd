/**
 * The pipeline's shapes whose histories the scale issue bounds (50 events at any job length), and a reader that says
 * where a history's events go. Shared by test/workflows/history-bounds.test.ts and `npm run history-shapes`.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import proto, { type temporal } from '@temporalio/proto';
import { progressQuery, type Progress } from '../../src/contract/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from './activities.js';

type Event = temporal.api.history.v1.IHistoryEvent;
type Eventually = (what: string, check: () => unknown) => Promise<unknown>;

export interface PipelineShape {
  name: string;
  input: Record<string, unknown>;
  /** Prepares the simulator before the pipeline starts. */
  before?: (sim: RunningSimulator) => void;
  /** Acts on the simulator while the pipeline runs (interrupts). */
  during?: (sim: RunningSimulator, eventually: Eventually) => Promise<void>;
}

const TS = SEED_IDS.testSuites;
const fast = { pollIntervalMs: 100, maxPollIntervalMs: 100, onGateFailure: 'report' };
const order = { kitchen: 'production', recipe: 'load-warehouse', variation: 'daily' };
const HOUR = 3_600_000;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Interrupts the profiling run `times` times (a scheduler shutdown and restart each), each status held longer than the
 * wait's report spacing so every change could be reported, then lets the run complete.
 */
export function interrupting(tableGroupId: string, times: number, holdMs = 6_000) {
  return async (sim: RunningSimulator, eventually: Eventually): Promise<void> => {
    const job = (await eventually('the long profiling run', () =>
      sim.controls
        .jobs()
        .find((j) => j.job_key === 'run-profile' && j.table_group_id === tableGroupId && j.status === 'running'),
    )) as { id: string };
    for (let i = 0; i < times; i++) {
      sim.controls.shutdownScheduler();
      await pause(holdMs);
      sim.controls.restartScheduler();
      await eventually('the run running again', () => sim.controls.job(job.id)?.status === 'running');
      await pause(holdMs);
    }
    sim.controls.setJobDurations({ runMs: 0 }, job.id);
  };
}

/**
 * The shapes: with and without an order step, with and without the generation job TestGen queues after a table
 * group's first completed profiling run (on a fresh simulator), also one that outlasts the profiling wait's
 * following of it, and a long profiling run interrupted three times. `tg`: the seed's table groups (sales generates; finance does not).
 */
export function pipelineShapes(tg: typeof SEED_IDS.tableGroups): PipelineShape[] {
  const plain = { ...fast, tableGroupId: tg.finance, testSuiteId: TS.financeProd };
  const generating = { ...fast, tableGroupId: tg.sales, testSuiteId: TS.salesProd };
  return [
    { name: 'profile, tests', input: plain },
    { name: 'profile, generation, tests', input: generating },
    { name: 'order, profile, tests', input: { ...plain, order } },
    { name: 'order, profile, generation, tests', input: { ...generating, order } },
    { name: 'profile, generation, tests (deferrable)', input: { ...generating, waitStrategy: 'deferrable' } },
    {
      name: 'order, profile, generation, tests (deferrable)',
      input: { ...generating, order, waitStrategy: 'deferrable' },
    },
    {
      // Longer than the profiling wait follows it (ten polls, at least 5 s): the workflow waits for it itself.
      name: 'profile, long generation, tests',
      input: generating,
      before: (sim) => sim.controls.planJobs({ job_key: 'run-test-generation', durations: { runMs: 8_000 } }),
    },
    {
      name: 'profile interrupted 3 times, tests',
      input: { ...plain, expectedDurationMs: HOUR },
      before: (sim) =>
        sim.controls.planJobs({ job_key: 'run-profile', target_id: tg.finance, durations: { runMs: HOUR }, count: 1 }),
      during: interrupting(tg.finance, 3),
    },
  ];
}

/** The settings the shapes need from the simulator. */
export const SHAPES_SIMULATOR = {
  jobDurations: { pendingMs: 100, claimMs: 50, runMs: 1_000, cancelMs: 100, interruptMs: 100 },
  orderDurations: { plannedMs: 50, runMs: 100 },
};

/** Counts status reports and workflow tasks, and names each event (with its activity, child or marker). */
export function describeEvents(events: Event[]): { reports: number; tasks: number; lines: string[] } {
  let reports = 0;
  let tasks = 0;
  const lines = events.map((e) => {
    const type = (proto.temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? '').replace('EVENT_TYPE_', '');
    if (e.workflowExecutionSignaledEventAttributes) reports++;
    if (e.workflowTaskCompletedEventAttributes) tasks++;
    const what =
      e.activityTaskScheduledEventAttributes?.activityType?.name ??
      e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name ??
      e.markerRecordedEventAttributes?.markerName ??
      e.workflowExecutionSignaledEventAttributes?.signalName ??
      '';
    return `${String(e.eventId).padStart(3)} ${type} ${what}`.trimEnd();
  });
  return { reports, tasks, lines };
}

/**
 * Runs one pipeline with `input` on a worker of its own against `sim` (search attributes on), calling `during` once
 * it has started; returns its history's events and its final progress.
 */
export async function runPipeline(
  env: TestWorkflowEnvironment,
  sim: RunningSimulator,
  input: Record<string, unknown>,
  during?: (handle: WorkflowHandle) => Promise<void>,
): Promise<{ events: Event[]; progress: Progress }> {
  return withProjectWorker(env, await simDeps(sim, { searchAttributes: true }), async (taskQueue) => {
    const handle = await env.client.workflow.start('dataops.dataQualityPipeline', {
      taskQueue,
      workflowId: `shape-${taskQueue}`,
      args: [input],
    });
    await during?.(handle);
    await handle.result();
    return { events: (await handle.fetchHistory()).events ?? [], progress: await handle.query(progressQuery) };
  });
}
