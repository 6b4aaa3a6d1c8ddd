/**
 * Worker Deployment Versioning on the dev server, with two worker versions of one deployment: a test run and a
 * promotion waiting for its approval, started on v1, finish on v1 after v2 became current (every workflow is pinned,
 * so a change to workflow code needs no patch); a new run starts on v2.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { loadWorkerConfig } from '../../src/config/worker.js';
import { approveUpdate, previewQuery, progressQuery } from '../../src/contract/index.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { createWorker } from '../../src/worker.js';
import { simulatorService } from '../helpers/processes.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startDevServerEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const TS = SEED_IDS.testSuites;

describe('worker deployment versioning, two versions on the dev server', () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  const running: { stop(): Promise<void> }[] = [];
  const blobs = mkdtempSync(join(tmpdir(), 'versioning-blobs-'));
  before(async () => {
    t = await startDevServerEnv();
    ({ sim } = await startTestSimulator({ jobDurations: { pendingMs: 50, claimMs: 20, runMs: 200 } }));
  });
  after(async () => {
    for (const w of running) await w.stop();
    await sim?.close();
    await t?.env.teardown();
  });

  async function startVersion(taskQueue: string, deploymentName: string, buildId: string) {
    const config = loadWorkerConfig({
      TEMPORAL_ADDRESS: t.env.connection.options.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      ...simulatorService(sim.url),
      DATAOPS_BLOB_DIR: blobs, // shared by both versions, as every worker of a task queue must
      DATAOPS_SEARCH_ATTRIBUTES: 'off',
      DATAOPS_DEPLOYMENT_NAME: deploymentName,
      DATAOPS_BUILD_ID: buildId,
    });
    const { worker, deps } = await createWorker(config, t.env.nativeConnection);
    const run = worker.run();
    const handle = {
      stop: async () => {
        worker.shutdown();
        await run;
        await deps.close();
      },
    };
    running.push(handle);
    return handle;
  }

  /** Makes a version current once its workers have polled (the server knows a version only then). */
  const makeCurrent = (deploymentName: string, buildId: string) =>
    eventually(
      `${buildId} current`,
      () =>
        t.env.client.workflowService
          .setWorkerDeploymentCurrentVersion({
            namespace: 'default',
            deploymentName,
            buildId,
            identity: 'versioning-test',
            ignoreMissingTaskQueues: true,
          })
          .then(
            () => true,
            () => false,
          ),
      { tries: 200, delayMs: 250 },
    );

  const versionOf = async (handle: WorkflowHandle) => {
    const d = await t.env.client.workflowService.describeWorkflowExecution({
      namespace: 'default',
      execution: { workflowId: handle.workflowId },
    });
    const info = d.workflowExecutionInfo?.versioningInfo;
    return { behavior: info?.behavior, buildId: info?.deploymentVersion?.buildId ?? null };
  };

  test('runs stay on the version that started them, the promotion too; new runs take the current one', async () => {
    const taskQueue = uniqueTaskQueue('versions');
    const deployment = `dataops-${taskQueue}`;
    const v1 = await startVersion(taskQueue, deployment, 'v1');
    await makeCurrent(deployment, 'v1');

    sim.controls.planJobs({ job_key: 'run-tests', durations: { runMs: 600_000 } });
    const testRun = await t.env.client.workflow.start('dataops.runTestSuite', {
      taskQueue,
      workflowId: `pinned-${taskQueue}`,
      args: [{ testSuiteId: TS.financeProd, pollIntervalMs: 200 }],
    });
    const promotion = await t.env.client.workflow.start('dataops.promoteTestDefinitions', {
      taskQueue,
      workflowId: `promotion-${taskQueue}`,
      args: [{ source: { testSuiteId: TS.salesDev }, targetTestSuiteId: TS.salesProd, preset: 'promotion' }],
    });
    const jobId = await eventually('the test run running', async () => {
      const p = await testRun.query(progressQuery);
      return p.jobs[0]?.status === 'running' && p.jobs[0].jobId;
    });
    const preview = await eventually('the preview', () => promotion.query(previewQuery));
    assert.deepEqual(await versionOf(testRun), { behavior: 1, buildId: 'v1' }, 'PINNED on v1');

    await startVersion(taskQueue, deployment, 'v2');
    await makeCurrent(deployment, 'v2');
    // The new current version reaches the task queue's routing a moment later: new runs start on v2 from then on.
    const fresh = await eventually(
      'a new run started on v2',
      async () => {
        const probe = await t.env.client.workflow.start('dataops.runTestSuite', {
          taskQueue,
          workflowId: `fresh-${taskQueue}-${Date.now()}`,
          args: [{ testSuiteId: TS.financeProd, pollIntervalMs: 200 }],
        });
        await probe.result();
        return (await versionOf(probe)).buildId === 'v2' && probe;
      },
      { tries: 20, delayMs: 500 },
    );
    assert.deepEqual(await versionOf(fresh), { behavior: 1, buildId: 'v2' }, 'a new run starts on the current v2');

    await promotion.executeUpdate(approveUpdate, { args: [{ previewId: preview.previewId, by: 'ops' }] });
    const promoted = (await promotion.result().catch((e: Error & { cause?: Error }) => {
      throw new Error(`the promotion failed: ${e.cause?.name}: ${e.cause?.message}`);
    })) as { status: string };
    assert.equal(promoted.status, 'applied');
    assert.deepEqual(await versionOf(promotion), { behavior: 1, buildId: 'v1' }, 'the promotion stayed PINNED on v1');

    sim.controls.setJobDurations({ runMs: 1 }, jobId);
    await testRun.result();
    assert.deepEqual(await versionOf(testRun), { behavior: 1, buildId: 'v1' }, 'still PINNED on v1 at its end');

    await v1.stop();
  });
});
