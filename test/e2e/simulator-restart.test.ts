import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { DataQualityPipelineResult } from '../../src/contract/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import {
  dist,
  freePort,
  simControls,
  startProcess,
  startWorkerProcess,
  type Proc,
  simulatorService,
} from '../helpers/processes.js';
import { startDevServerEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

describe('reliability: the service goes away and comes back', () => {
  let t: TestEnv;
  const procs: Proc[] = [];
  before(async () => {
    t = await startDevServerEnv();
  });
  after(async () => {
    await Promise.all(procs.map((p) => p.stop('SIGKILL')));
    await t?.env.teardown();
  });

  test('the simulator restarts from its state file mid-wait: the pipeline carries on, nothing is resubmitted', async () => {
    const port = await freePort();
    const stateFile = join(mkdtempSync(join(tmpdir(), 'sim-restart-')), 'state.json');
    const startSim = async () => {
      const p = startProcess(
        [dist('simulator/server.js'), '--port', String(port), '--controls', '--state-file', stateFile],
        {},
      );
      procs.push(p);
      await eventually('the simulator to listen', () => p.output().includes('listening on'));
      return p;
    };
    const url = `http://127.0.0.1:${port}`;
    const control = simControls(() => url);

    const sim = await startSim();
    await control('PUT', '/_sim/job-durations', { pendingMs: 200, claimMs: 100, runMs: 8_000 });
    const taskQueue = uniqueTaskQueue('restart-sim');
    const worker = startWorkerProcess({
      TEMPORAL_ADDRESS: t.env.connection.options.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      ...simulatorService(url),
      DATAOPS_BLOB_DIR: mkdtempSync(join(tmpdir(), 'blobs-')),
    });
    procs.push(worker);
    const handle = await t.env.client.workflow.start('dataops.dataQualityPipeline', {
      taskQueue,
      workflowId: `sim-restart-${taskQueue}`,
      args: [
        {
          tableGroupId: SEED_IDS.tableGroups.finance,
          testSuiteId: SEED_IDS.testSuites.financeProd,
          onGateFailure: 'report',
          testGeneration: 'skip',
          pollIntervalMs: 300,
        },
      ],
    });
    const job = await eventually('the profiling job to run', async () =>
      ((await control('GET', '/_sim/jobs')) as { id: string; job_key: string; status: string }[]).find(
        (j) => j.job_key === 'run-profile' && j.status === 'running',
      ),
    );
    await sim.stop('SIGTERM');
    await new Promise((r) => setTimeout(r, 1_500)); // the service is down: polls fail and are retried
    await startSim(); // the same port and state file
    const result = (await handle.result()) as DataQualityPipelineResult;
    assert.equal(result.profiling.job.jobId, job.id, 'the same job, known to the restarted service');
    const counters = await control('GET', '/_sim/counters');
    assert.equal(counters.submissions[SEED_IDS.tableGroups.finance], 1);
    assert.equal(counters.submissions[SEED_IDS.testSuites.financeProd], 1);
    assert.match(worker.output(), /ECONNREFUSED|ConnectionFailed/, 'the outage was seen and retried');
  });
});
