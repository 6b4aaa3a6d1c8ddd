import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ActivityOptions } from '@temporalio/common';
import { SUBMIT } from '../../src/contract/activity-options.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createActivities, LocalDirectoryBlobStore, type ActivityDeps } from '../../src/activities/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { clientFor, startTestSimulator, type UserKey } from './sim.js';
import { withWorker } from './temporal.js';

export const harnessPath = fileURLToPath(new URL('../fixtures/workflows/activity-harness.js', import.meta.url));

/**
 * Activity dependencies for a simulator: profile "default" (admin, project DEMO, its client's request timeout
 * `timeoutMs`, 5 s when not given; `soleWriter` unless told false: a test's simulator has no other writer unless the
 * test makes one) plus any extra.
 */
export async function simDeps(
  sim: RunningSimulator,
  extra: Partial<ActivityDeps> & {
    user?: UserKey;
    projectCode?: string | null;
    timeoutMs?: number;
    soleWriter?: boolean;
  } = {},
): Promise<ActivityDeps> {
  const timeout = extra.timeoutMs !== undefined ? { timeoutMs: extra.timeoutMs } : {};
  const client = await clientFor(sim, extra.user ?? 'admin', timeout);
  const projectCode = extra.projectCode === null ? undefined : (extra.projectCode ?? 'DEMO');
  return {
    profiles: {
      default: { client, ...(projectCode ? { projectCode } : {}), soleWriter: extra.soleWriter ?? true },
      ...extra.profiles,
    },
    store: extra.store ?? new LocalDirectoryBlobStore(mkdtempSync(join(tmpdir(), 'blobs-'))),
    exportDir: extra.exportDir ?? mkdtempSync(join(tmpdir(), 'exports-')),
    // A lost submission is looked up again after this; tests hold requests for a few seconds at most.
    submitSettleMs: extra.submitSettleMs ?? 1_500,
    ...(extra.inlineItemsMaxBytes !== undefined ? { inlineItemsMaxBytes: extra.inlineItemsMaxBytes } : {}),
    ...(extra.searchAttributes !== undefined ? { searchAttributes: extra.searchAttributes } : {}),
  };
}

/**
 * Runs `fn` with a simulator of its own and its activity dependencies (`extra` as for simDeps), closing it after: for
 * tests that change the service's data (a promotion changes its target suite). `simulator`: its options.
 */
export async function withFreshSimulator<T>(
  fn: (sim: RunningSimulator, deps: ActivityDeps) => Promise<T>,
  extra: Parameters<typeof simDeps>[1] = {},
  simulator: Parameters<typeof startTestSimulator>[0] = {},
): Promise<T> {
  const { sim } = await startTestSimulator(simulator);
  try {
    return await fn(sim, await simDeps(sim, extra));
  } finally {
    await sim.close();
  }
}

/** Runs `fn` while a worker with the harness workflows (`callActivity`, the submitter) and our activities polls. */
export function withHarnessWorker<T>(
  env: TestWorkflowEnvironment,
  deps: ActivityDeps,
  fn: (taskQueue: string) => Promise<T>,
  taskQueue?: string,
): Promise<T> {
  return withWorker(env, { workflowsPath: harnessPath, activities: createActivities(deps) }, fn, taskQueue);
}

/** Runs one activity through a real worker and workflow (the harness) with the given options. */
export async function runActivity(
  env: TestWorkflowEnvironment,
  deps: ActivityDeps,
  name: string,
  input: unknown,
  options: ActivityOptions,
  taskQueue?: string,
): Promise<unknown> {
  return withHarnessWorker(
    env,
    deps,
    (taskQueue) =>
      env.client.workflow.execute('callActivity', {
        taskQueue,
        workflowId: `act-${name}-${taskQueue}`,
        args: [`dataops.${name}`, input, options],
      }),
    taskQueue,
  );
}

export const workflowsPath = fileURLToPath(new URL('../../src/workflows/index.js', import.meta.url));

/** Runs `fn` while a worker with the project's workflows and the simulator's activities polls a fresh task queue. */
export async function withProjectWorker<T>(
  env: TestWorkflowEnvironment,
  deps: ActivityDeps,
  fn: (taskQueue: string) => Promise<T>,
  taskQueue?: string,
): Promise<T> {
  return withWorker(env, { workflowsPath, activities: createActivities(deps) }, fn, taskQueue);
}

/** Runs workflow `type` with `input` to its end on a project worker of its own, and returns its result. */
export function executeOnProjectWorker<T>(
  env: TestWorkflowEnvironment,
  deps: ActivityDeps,
  type: string,
  input: unknown,
): Promise<T> {
  return withProjectWorker(env, deps, (taskQueue) =>
    env.client.workflow.execute(type, { taskQueue, workflowId: `${type}-${taskQueue}`, args: [input] }),
  ) as Promise<T>;
}

/** The submission activities' options, retried after 50 ms instead of a second. */
export const SUBMIT_QUICK_RETRY = { ...SUBMIT, retry: { ...SUBMIT.retry, initialInterval: '50 ms' } };

/** How many jobs the simulator has had submitted for `target`. */
export const submissionsTo = (sim: RunningSimulator, target: string): number =>
  sim.controls.counters().submissions[target] ?? 0;
