/** The Temporal side of the scale benchmark: N pipelines started at once on the worker, and what their histories say. */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { optionalTsToMs } from '@temporalio/common/lib/time.js';
import { startDataops, type DataQualityPipelineResult } from '../../src/client/index.js';
import { ensureSearchAttributes } from '../../src/setup/search-attributes.js';
import type { Target } from './loop.js';
import type { Proc } from '../../test/helpers/processes.js';
import { pooled } from './measure.js';
import type { Timeline } from './phases.js';
import { countRetries } from './retries.js';
import { startMarks, type StartMarks } from './start-phase.js';

type Event = temporal.api.history.v1.IHistoryEvent;

export interface PipelineOptions {
  pollIntervalMs: number;
  waitStrategy?: 'heartbeat' | 'deferrable';
  /** More input fields for every pipeline (the benchmark's `--input`). */
  extra?: Record<string, unknown>;
  /** Whether each start sets the run's first search attributes (registered: `registerSearchAttributes`). */
  searchAttributes?: boolean;
}

/**
 * Whether pipelines start with their first search attributes, as the CLI's do: unless the worker is told to set none
 * (`--worker-env DATAOPS_SEARCH_ATTRIBUTES=off`). Registered here first, so a start never waits for the worker's own
 * registration at its start.
 */
export async function registerSearchAttributes(client: Client, env: Record<string, string>): Promise<boolean> {
  if (env.DATAOPS_SEARCH_ATTRIBUTES === 'off') return false;
  await ensureSearchAttributes(client.connection, client.options.namespace);
  return true;
}

/** The input every pipeline of the benchmark is given (and shape 6 of the bound checks, bound-worker.ts). */
export function pipelineInput(target: Target, opts: Omit<PipelineOptions, 'searchAttributes'>) {
  return {
    ...opts.extra,
    ...target,
    pollIntervalMs: opts.pollIntervalMs,
    maxPollIntervalMs: opts.pollIntervalMs,
    onGateFailure: 'report' as const,
    ...(opts.waitStrategy ? { waitStrategy: opts.waitStrategy } : {}),
  };
}

/** A pipeline started: its workflow id and its first run's id. */
export interface Started {
  workflowId: string;
  runId: string;
}

/**
 * Starts one pipeline per target; answers each one's ids once every start is accepted. Everything the benchmark then
 * asks of a pipeline names its run: a call by workflow id alone costs the server a read of the current run
 * (`GetCurrentExecution`), which the floor's and the bound's waits, on their start handles, do not pay.
 */
export async function startPipelines(
  client: Client,
  taskQueue: string,
  label: string,
  targets: Target[],
  opts: PipelineOptions,
): Promise<Started[]> {
  const ids = targets.map((_, i) => `scale-${label}-${i}`);
  // Through the package's starter, as a caller would.
  const started = await pooled(targets, 100, (target, i) =>
    startDataops(client, 'dataQualityPipeline', pipelineInput(target, opts), {
      taskQueue,
      workflowId: ids[i]!,
      withSearchAttributes: opts.searchAttributes ?? false,
    }),
  );
  const refused = started.filter((s) => s.status === 'rejected');
  if (refused.length) throw new Error(`${refused.length} starts refused: ${String(refused[0]!.reason)}`);
  return started.map((s, i) => ({
    workflowId: ids[i]!,
    runId: s.status === 'fulfilled' ? s.value.firstExecutionRunId : '',
  }));
}

/**
 * Starts one workflow per id with `start` (100 starts in flight), then waits for every one to end, on its start
 * handle (so by its run); answers why each that did not start or failed did. The floor's and the bound's batches.
 */
export async function startAndFinish(
  ids: string[],
  start: (workflowId: string, i: number) => Promise<{ result(): Promise<unknown> }>,
): Promise<unknown[]> {
  const started = await pooled(ids, 100, start);
  const done = await pooled(started, 2_000, async (s) => {
    if (s.status === 'rejected') throw s.reason;
    await s.value.result();
  });
  return done.flatMap((d): unknown[] => (d.status === 'rejected' ? [d.reason as unknown] : []));
}

/** Each pipeline's result, and when the bench heard it (epoch ms, by index; absent for a failed one). */
export async function results(client: Client, pipelines: Started[]) {
  const endMs: number[] = [];
  const settled = await pooled(pipelines, 2_000, async ({ workflowId, runId }, i) => {
    const result = (await client.workflow.getHandle(workflowId, runId).result()) as DataQualityPipelineResult;
    endMs[i] = Date.now();
    return result;
  });
  return { settled, endMs };
}

/** How long after each job completed the workflow saw it, by job: the profiling wait also submits the test run. */
export interface Lags {
  profiling: number[];
  testRun: number[];
}

/** The activities that wait for a job: the heartbeating ones (one submits its job first) and the deferrable poll. */
const JOB_WAITS = new Set(['dataops.waitForJob', 'dataops.checkJob']);

/**
 * When each wait for a job completed, in order (a pipeline's: the profiling run's, then the test run's), in ms.
 */
export function waitsCompleted(events: Event[]): number[] {
  const waits = new Set(
    events
      .filter((e) => JOB_WAITS.has(e.activityTaskScheduledEventAttributes?.activityType?.name ?? ''))
      .map((e) => String(e.eventId)),
  );
  return events
    .filter((e) => waits.has(String(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? '')))
    .map((e) => optionalTsToMs(e.eventTime) ?? NaN);
}

/**
 * From the histories of the pipelines: events per pipeline, how long after each job completed (the service's
 * completed_at) the workflow saw it (its wait activity's completion), the steps of each start (start-phase.ts) and
 * the activity attempts retried (retries.ts);
 * and from their results, how long each job ran.
 */
export async function historyFigures(client: Client, pipelines: Started[], outcomes: DataQualityPipelineResult[]) {
  const events: number[] = [];
  const lags: Lags = { profiling: [], testRun: [] };
  const ranS: number[] = [];
  const starts: StartMarks[] = [];
  const retried = new Map<string, number>();
  await pooled(
    pipelines.map((p, i) => [p, outcomes[i]] as const),
    50,
    async ([{ workflowId, runId }, outcome]) => {
      const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
      const all = history.events ?? [];
      events.push(all.length);
      countRetries(all, retried);
      const marks = outcome && startMarks(all, outcome.profiling.job.wait.job.created_at);
      if (marks) starts.push(marks);
      const [profiled, tested] = waitsCompleted(all);
      const lag = (at: number | undefined, done: string | null | undefined) =>
        at !== undefined && done ? [at - Date.parse(done)] : [];
      lags.profiling.push(...lag(profiled, outcome?.profiling.job.wait.job.completed_at));
      lags.testRun.push(...lag(tested, outcome?.testRun.job.wait.job.completed_at));
      for (const job of outcome ? [outcome.profiling.job.wait.job, outcome.testRun.job.wait.job] : []) {
        const s = (Date.parse(job.completed_at ?? '') - Date.parse(job.started_at ?? '')) / 1000;
        if (Number.isFinite(s)) ranS.push(s);
      }
    },
  );
  return { events, lags, ranS, starts, retried };
}

/** The timelines (phases.ts) of the pipelines of a batch started at `t0` that ended with a result. */
export const timelinesOf = (t0: number, outcomes: (DataQualityPipelineResult | undefined)[], endMs: number[]) =>
  outcomes.flatMap((o, i): Timeline[] =>
    o ? [{ t0, jobs: [o.profiling.job.wait.job, o.testRun.job.wait.job], endMs: endMs[i]! }] : [],
  );

/**
 * `work`, unless the worker process exits first (a worker that cannot start, for example with a `--worker-env`
 * variable out of its bounds): then the benchmark fails with the worker's output instead of waiting for pipelines
 * nobody runs.
 */
export function whileAlive<T>(worker: Proc, work: Promise<T>): Promise<T> {
  const exited = worker.exited.then((code): never => {
    const how = worker.child.signalCode ?? `code ${code}`;
    throw new Error(`the worker exited (${how}) while pipelines ran; its output:\n${worker.output()}`);
  });
  return Promise.race([work, exited]);
}
