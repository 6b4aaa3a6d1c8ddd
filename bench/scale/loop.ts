/**
 * The plain baseline of the scale benchmark: one async function per pipeline, making the same service calls with
 * the same client as the worker's activities (submit, poll, summary, the generation outlook), and no Temporal.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceClient } from '../../src/api/index.js';
import { isTerminalJobStatus } from '../../src/vocabulary.js';

export interface Target {
  tableGroupId: string;
  testSuiteId: string;
}

/** Polls every `pollMs` until the job ends; answers how long after its completion the loop saw it (ms). */
async function detectionLag(c: ServiceClient, jobId: string, pollMs: number): Promise<number> {
  for (;;) {
    const job = await c.jobs.get(jobId);
    if (isTerminalJobStatus(job.status)) return Date.now() - Date.parse(job.completed_at ?? new Date().toISOString());
    await sleep(pollMs);
  }
}

/** One pipeline: profile, read its summary and the generation outlook, run the tests, read their summary. */
export async function plainPipeline(c: ServiceClient, target: Target, pollMs: number): Promise<number[]> {
  const profiling = await c.profilingRuns.submit(target.tableGroupId);
  const profiled = await detectionLag(c, profiling.id, pollMs);
  await c.profilingRuns.summary(profiling.id);
  await c.tableGroups.get(target.tableGroupId);
  const tests = await c.testRuns.submit(target.testSuiteId);
  const tested = await detectionLag(c, tests.id, pollMs);
  const summary = await c.testRuns.summary(tests.id);
  if (summary.status !== 'completed') throw new Error(`test run ${tests.id} ended ${summary.status}`);
  return [profiled, tested];
}
