/**
 * The worker killed while a pipeline's job runs on TestGen 5.134, then another started on its task queue: the
 * profiling run, then the test run. The wait goes on on the new worker (after the dead attempt's heartbeat timeout)
 * and the pipeline completes with one profiling run and one test run on TestGen, the ones it names: no job sent
 * twice, none lost. Workers run as operators run them (child processes, killed with SIGKILL).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import { ServiceClient } from '../../src/api/index.js';
import type { DataQualityPipelineResult } from '../../src/contract/index.js';
import { startWorkerProcess, type Proc } from '../helpers/processes.js';
import { startDevServerEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';
import { testGenNeed, startTestGen, testGenService, type TestGenPeer } from '../helpers/testgen.js';
import { needing } from '../helpers/needs.js';

const JOB_KEYS = ['run-profile', 'run-tests', 'run-test-generation'] as const;

describe(
  'the worker killed while a pipeline job runs on TestGen 5.134 (peer)',
  ...needing(testGenNeed(), () => {
    let t: TestEnv;
    let peer: TestGenPeer;
    let client: ServiceClient;
    const workers: Proc[] = [];
    const work = mkdtempSync(join(tmpdir(), 'peer-death-'));

    before(async () => {
      [t, peer] = await Promise.all([startDevServerEnv(), startTestGen()]);
      client = new ServiceClient({ baseUrl: peer.url, apiBearer: { type: 'oauth', ...(await peer.authorize()) } });
    });
    after(async () => {
      await Promise.all(workers.map((w) => w.stop('SIGKILL')));
      client?.close();
      await peer?.close();
      await t?.env.teardown();
    });

    const startWorker = async (taskQueue: string) => {
      const w = startWorkerProcess({
        TEMPORAL_ADDRESS: t.env.connection.options.address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        ...testGenService(peer, await peer.authorize()),
        DATAOPS_BLOB_DIR: join(work, 'blobs'),
        DATAOPS_EXPORT_DIR: join(work, 'exports'),
        LOG_LEVEL: 'WARN',
      });
      workers.push(w);
      return w;
    };

    /** Every job of the demo project, with its kind and its status as TestGen says now. */
    const jobs = async () => {
      const all: { id: string; key: string; status: string }[] = [];
      for (const job_key of JOB_KEYS)
        for (const j of (await client.jobs.list(peer.demo.projectCode, { job_key, limit: 50 })).items)
          all.push({ id: j.id, key: job_key, status: (await client.jobs.get(j.id)).status });
      return all;
    };

    for (const key of ['run-profile', 'run-tests'])
      test(`killed while its ${key} job runs`, { timeout: 4 * 60_000 }, async () => {
        const queue = uniqueTaskQueue('death');
        const first = await startWorker(queue);
        const earlier = new Set((await jobs()).map((j) => j.id));
        const handle = (await t.env.client.workflow.start('dataops.dataQualityPipeline', {
          taskQueue: queue,
          workflowId: `peer-death-${queue}`,
          args: [
            {
              pollIntervalMs: 500,
              maxPollIntervalMs: 1_000,
              // A dead attempt is given up after this, and the wait retried on the new worker.
              heartbeatTimeoutMs: 5_000,
              tableGroupId: peer.demo.tableGroupId,
              testSuiteId: peer.demo.testSuiteId,
              testGeneration: 'skip',
              onGateFailure: 'report',
            },
          ],
        })) as WorkflowHandle<() => Promise<DataQualityPipelineResult>>;
        const running = async () =>
          (await jobs()).some((j) => !earlier.has(j.id) && j.key === key && j.status === 'running');
        for (let tries = 0; !(await running()); tries++) {
          assert.ok(tries < 1_000, `TestGen never showed the ${key} job running`);
          await sleep(20);
        }
        await first.stop('SIGKILL');
        await startWorker(queue);

        const result = await handle.result();
        const created = (await jobs()).filter((j) => !earlier.has(j.id));
        const said = JSON.stringify(created);
        assert.deepEqual(
          created.map((j) => [j.key, j.status]),
          [
            ['run-profile', 'completed'],
            ['run-tests', 'completed'],
          ],
          `one profiling run and one test run, completed: ${said}`,
        );
        assert.equal(result.profiling.job.jobId, created[0]!.id, `the profiling run it reports is TestGen's: ${said}`);
        assert.equal(result.testRun.job.jobId, created[1]!.id, `the test run it reports is TestGen's: ${said}`);
      });
  }),
);
