/**
 * The plain baseline of the scale benchmark: one async function per pipeline, making the same service calls with
 * the same client as the worker's activities (submit, poll, summary, the generation outlook), and no Temporal.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceClient } from '../../src/api/index.js';
import { isTerminalJobStatus } from '../../src/vocabulary.js';
import type { JobTimes, Timeline } from './phases.js';

export interface Target {
  tableGroupId: string;
  testSuiteId: string;
}

/**
 * Polls every `pollMs` until the job ends; answers how long after its completion the loop saw it (ms), and the job's
 * record.
 */
async function detectionLag(c: ServiceClient, jobId: string, pollMs: number): Promise<[number, JobTimes]> {
  for (;;) {
    const job = await c.jobs.get(jobId);
    if (isTerminalJobStatus(job.status))
      return [Date.now() - Date.parse(job.completed_at ?? new Date().toISOString()), job];
    await sleep(pollMs);
  }
}

/**
 * One pipeline of a batch started at `t0`: profile, read its summary and the generation outlook, run the tests, read
 * their summary. Answers the detection lags and the pipeline's timeline (phases.ts).
 */
export async function plainPipeline(
  c: ServiceClient,
  target: Target,
  pollMs: number,
  t0: number,
): Promise<{ lags: number[]; timeline: Timeline }> {
  const profiling = await c.profilingRuns.submit(target.tableGroupId);
  const [profiled, first] = await detectionLag(c, profiling.id, pollMs);
  await c.profilingRuns.summary(profiling.id);
  await c.tableGroups.get(target.tableGroupId);
  const tests = await c.testRuns.submit(target.testSuiteId);
  const [tested, second] = await detectionLag(c, tests.id, pollMs);
  const summary = await c.testRuns.summary(tests.id);
  if (summary.status !== 'completed') throw new Error(`test run ${tests.id} ended ${summary.status}`);
  return { lags: [profiled, tested], timeline: { t0, jobs: [first, second], endMs: Date.now() } };
}
