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
import { ServiceClient } from '../../src/api/index.js';
import { startWorkerProcess, type Proc } from '../helpers/processes.js';
import { startDevServerEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';
import { testGenNeed, startTestGen, testGenService, type TestGenPeer } from '../helpers/testgen.js';
import { needing } from '../helpers/needs.js';
import { demoJobs, startDemoPipeline, untilJob } from '../helpers/testgen-jobs.js';

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

    const jobs = () => demoJobs(client, peer);

    for (const key of ['run-profile', 'run-tests'])
      test(`killed while its ${key} job runs`, { timeout: 4 * 60_000 }, async () => {
        const queue = uniqueTaskQueue('death');
        const first = await startWorker(queue);
        const earlier = new Set((await jobs()).map((j) => j.id));
        // A dead attempt is given up after its heartbeat timeout, and the wait retried on the new worker.
        const handle = await startDemoPipeline(t.env.client, peer, queue, `peer-death-${queue}`, {
          heartbeatTimeoutMs: 5_000,
        });
        await untilJob(client, peer, earlier, key, 'running');
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
