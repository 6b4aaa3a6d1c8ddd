/**
 * Heartbeating waits run on the waits task queue with slots of their own, so jobs being waited on never hold the
 * slots that submissions need: with a single activity slot on the workflows' queue, two more test runs are
 * submitted while the first one is being waited on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createActivities } from '../../src/activities/index.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import type { 'dataops.runTestSuite' as runTestSuite } from '../../src/workflows/jobs.js';
import { simDeps, workflowsPath } from '../helpers/activities.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startDevServerEnv, withWorker, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const TS = SEED_IDS.testSuites;
const SLOW = { pendingMs: 100, claimMs: 100, runMs: 600_000, cancelMs: 100, interruptMs: 100 };

describe('the waits task queue', () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  before(async () => {
    // The dev server: the simulator's clock is the test's, so nothing needs skipped time, and the time-skipping server
    // once failed one of these runs 'Workflow execution timed out' while its results were awaited together.
    t = await startDevServerEnv();
    ({ sim } = await startTestSimulator({ jobDurations: SLOW, manualClock: true }));
  });
  after(async () => {
    await sim?.close();
    await t?.env.teardown();
  });

  test('waits do not take the slots submissions need', async () => {
    const suites: string[] = [TS.salesProd, TS.salesDev, TS.financeProd];
    const activities = createActivities(await simDeps(sim));
    await withWorker(
      t.env,
      { workflowsPath, activities, maxConcurrentActivityTaskExecutions: 1 },
      async (taskQueue) => {
        const start = (testSuiteId: string) =>
          t.env.client.workflow.start<typeof runTestSuite>('dataops.runTestSuite', {
            taskQueue,
            workflowId: `slots-${testSuiteId}-${taskQueue}`,
            args: [{ testSuiteId, waitStrategy: 'heartbeat', pollIntervalMs: 200, maxPollIntervalMs: 200 }],
          });
        // The first job is being waited on (polled) before the others are even started.
        const first = await start(suites[0]!);
        const job = await eventually('the first test run', () =>
          sim.controls.jobs().find((j) => j.job_key === 'run-tests' && j.test_suite_id === suites[0]),
        );
        await eventually(
          'the first wait polling',
          () => sim.controls.requests().filter((r) => r.path === `/api/v1/jobs/${job.id}`).length >= 3,
        );
        const handles = [first, ...(await Promise.all(suites.slice(1).map(start)))];
        const jobs = await eventually('every test run submitted while the others are waited on', () => {
          const ours = sim.controls
            .jobs()
            .filter((j) => j.job_key === 'run-tests' && suites.includes(j.test_suite_id!));
          return ours.length === suites.length ? ours : undefined;
        });
        assert.ok(jobs.every((j) => j.status !== 'completed'));
        sim.controls.advanceClock(SLOW.pendingMs + SLOW.claimMs + SLOW.runMs);
        const results = await Promise.all(handles.map((h) => h.result()));
        assert.deepEqual(
          results.map((r) => r.job.wait.job.status),
          ['completed', 'completed', 'completed'],
        );
      },
    );
  });
});
