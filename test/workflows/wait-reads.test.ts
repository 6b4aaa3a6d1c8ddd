/**
 * What a wait reads as it sees its job complete (the summary, the generation outlook and job), sparing the workflow an
 * activity and a workflow task for each; and the fallback when such a read fails: the workflow reads it itself,
 * retried like every call, and the wait neither fails nor cancels anything.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import type { 'dataops.dataQualityPipeline' as dataQualityPipeline } from '../../src/workflows/pipeline.js';
import type { 'dataops.runTestSuite' as runTestSuite } from '../../src/workflows/jobs.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { startTestSimulator, faultHits } from '../helpers/sim.js';
import { startTimeSkippingEnv, type TestEnv } from '../helpers/temporal.js';
import { scheduledActivities } from '../helpers/fresh-run.js';

const TS = SEED_IDS.testSuites;
const TG = SEED_IDS.tableGroups;
const FAST = { pendingMs: 100, claimMs: 100, runMs: 300, cancelMs: 100, interruptMs: 100 };

const scheduled = (history: History) => scheduledActivities(history.events ?? []);

describe('what the wait reads when the job completes', () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  before(async () => {
    t = await startTimeSkippingEnv();
    ({ sim } = await startTestSimulator({ jobDurations: FAST }));
  });
  after(async () => {
    await sim?.close();
    await t?.env.teardown();
  });

  async function run(waitStrategy: 'heartbeat' | 'deferrable') {
    return withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const handle = await t.env.client.workflow.start<typeof runTestSuite>('dataops.runTestSuite', {
        taskQueue,
        workflowId: `reads-${waitStrategy}-${taskQueue}`,
        args: [{ testSuiteId: TS.financeProd, waitStrategy, pollIntervalMs: 100, maxPollIntervalMs: 100 }],
      });
      return { result: await handle.result(), history: await handle.fetchHistory() };
    });
  }

  for (const waitStrategy of ['heartbeat', 'deferrable'] as const) {
    const wait = waitStrategy === 'heartbeat' ? 'waitForJob' : 'checkJob';

    test(`${waitStrategy}: the summary comes with the wait, no activity of its own`, async () => {
      const { result, history } = await run(waitStrategy);
      assert.deepEqual(scheduled(history), [wait]);
      assert.equal(result.summary.jobId, result.job.jobId);
      assert.equal(result.summary.status, 'completed');
      assert.ok(result.summary.resultCounts, 'counts read');
      assert.equal('summary' in result.job.wait, false, 'the wait outcome in the result stays as the contract says');
    });

    test(`${waitStrategy}: a summary the wait cannot read is read by the workflow's own activity`, async () => {
      // A test run of ours first: the next submission then reads its summary, to see whether the deployment keeps our
      // id (src/exactly-once/reconcile.ts, keepsOurId). The fault is for the read after it, the wait's.
      await run(waitStrategy);
      const fault = sim.controls.addFault({
        kind: 'status',
        status: 503,
        method: 'GET',
        path: '/api/v1/test-runs/',
        skip: 1,
      });
      const { result, history } = await run(waitStrategy);
      assert.equal(faultHits(sim, fault), 1, 'the wait met the fault');
      assert.deepEqual(scheduled(history), [wait, 'getTestRunSummary']);
      assert.equal(result.summary.jobId, result.job.jobId);
      assert.ok(result.summary.resultCounts);
      assert.equal(result.job.wait.job.status, 'completed');
    });
  }

  test('a follow-up generation job the profiling wait cannot list is looked for by the workflow', async () => {
    // TestGen 5.134's behaviour: the group's first completed profiling run queues a generation job.
    const { sim: bare } = await startTestSimulator({ jobDurations: FAST });
    try {
      // The first listing is the profiling submission's watermark; the second, the wait's lookup.
      const listing = '^/api/v1/projects/[^/]+/jobs';
      const fault = bare.controls.addFault({ kind: 'status', status: 503, method: 'GET', path: listing, skip: 1 });
      const { result, history } = await withProjectWorker(t.env, await simDeps(bare), async (taskQueue) => {
        const handle = await t.env.client.workflow.start<typeof dataQualityPipeline>('dataops.dataQualityPipeline', {
          taskQueue,
          workflowId: `reads-generation-${taskQueue}`,
          args: [{ tableGroupId: TG.sales, testSuiteId: TS.salesProd, testGeneration: 'wait', pollIntervalMs: 100 }],
        });
        return { result: await handle.result(), history: await handle.fetchHistory() };
      });
      assert.equal(faultHits(bare, fault), 1, 'the wait met the fault');
      assert.deepEqual(scheduled(history), ['waitForJob', 'findGenerationJob', 'waitForJob', 'waitForJob']);
      const generated = bare.controls.jobs().filter((j) => j.job_key === 'run-test-generation');
      assert.equal(result.generation?.jobId, generated[0]?.id);
      assert.equal(result.generation?.wait.job.status, 'completed');
    } finally {
      await bare.close();
    }
  });
});
