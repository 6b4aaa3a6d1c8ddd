/**
 * Workers that share one service account, as operators run them: three worker processes, one confidential OAuth
 * client and its one refresh token, access tokens that expire every 2 seconds (each worker refreshes on its own,
 * and none revokes another's token, as on TestGen), and pipelines that outlive many tokens. None fails, and no job is
 * created twice. Then an hour of the service's own time (its clock run ahead a minute every 100 ms, so every token
 * expires between two polls) through six hour-long jobs: every one is followed to its end.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DataQualityPipelineResult, ProfileTableGroupResult } from '../../src/contract/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { ending } from '../helpers/ending.js';
import { startWorkerProcess, type Proc } from '../helpers/processes.js';
import { uniqueTaskQueue } from '../helpers/temporal.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const JOBS = { pendingMs: 200, claimMs: 100, runMs: 5_000, cancelMs: 100, interruptMs: 100 };

describe('three workers sharing one confidential OAuth client', () => {
  const s = devServerAndSimulator({ jobDurations: JOBS, accessTokenLifetimeMs: 2_000 });

  /** Three worker processes sharing one confidential client and its refresh token, on a task queue of their own. */
  const threeWorkers = (): { taskQueue: string; workers: Proc[] } => {
    const refreshToken = s.sim.controls.issueRefreshToken({
      username: 'alice',
      clientId: 'workers',
      clientSecret: 'shared-secret',
    });
    const taskQueue = uniqueTaskQueue('shared');
    const env = {
      TEMPORAL_ADDRESS: s.d.env.connection.options.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      DATAOPS_BASE_URL: s.sim.url,
      DATAOPS_PROJECT_CODE: 'DEMO',
      DATAOPS_OAUTH_TOKEN_URL: `${s.sim.url}/oauth/token`,
      DATAOPS_OAUTH_CLIENT_ID: 'workers',
      DATAOPS_OAUTH_CLIENT_SECRET: 'shared-secret',
      DATAOPS_OAUTH_REFRESH_TOKEN: refreshToken,
      LOG_LEVEL: 'WARN',
    };
    return { taskQueue, workers: [1, 2, 3].map(() => startWorkerProcess(env)) };
  };
  const grants = () => s.sim.controls.requests().filter((r) => r.path === '/oauth/token').length;

  test(
    'access tokens expiring every 2 s through nine pipelines: none fails, no job twice',
    { timeout: 5 * 60_000 },
    async () => {
      const { taskQueue, workers } = threeWorkers();
      try {
        const before = s.sim.controls.jobs().length;
        const grantsBefore = grants();
        const targets = [
          [TG.sales, TS.salesProd],
          [TG.finance, TS.financeProd],
          [TG.salesDev, TS.salesDev],
        ] as const;
        const handles = await Promise.all(
          [0, 1, 2, 3, 4, 5, 6, 7, 8].map((n) =>
            s.d.env.client.workflow.start('dataops.dataQualityPipeline', {
              taskQueue,
              workflowId: `${taskQueue}-${n}`,
              args: [
                {
                  tableGroupId: targets[n % 3]![0],
                  testSuiteId: targets[n % 3]![1],
                  testGeneration: 'skip',
                  pollIntervalMs: 300,
                  maxPollIntervalMs: 600,
                },
              ],
            }),
          ),
        );
        const ends = await Promise.all(handles.map((h) => ending<DataQualityPipelineResult>(h)));
        const failed = ends.filter((e) => e.outcome !== 'ok');
        assert.deepEqual(
          failed.map((e) => e.failure),
          [],
          `every pipeline completed\n${workers.map((w) => w.output().slice(-2_000)).join('\n---\n')}`,
        );
        // TestGen (and the simulator) queue a generation job of their own after a table group's first profiling run.
        const created = s.sim.controls
          .jobs()
          .slice(before)
          .filter((j) => j.job_key === 'run-profile' || j.job_key === 'run-tests');
        assert.equal(created.length, 18, 'two jobs per pipeline, none twice');
        const reported = new Set(ends.flatMap((e) => [e.result?.profiling.job.jobId, e.result?.testRun.job.jobId]));
        assert.equal(reported.size, 18, 'each pipeline reported jobs of its own');
        const renewed = grants() - grantsBefore;
        assert.ok(renewed >= 9, `the access tokens were renewed many times over (${renewed} grants)`);
      } finally {
        await Promise.all(workers.map((w) => w.stop('SIGKILL')));
      }
    },
  );

  test(
    "an hour of the service's time, its access tokens lasting 2 s of it: three workers follow every job to its end",
    { timeout: 5 * 60_000 },
    async () => {
      // The service's clock runs a minute ahead every 100 ms: every token the workers hold expires between two polls.
      s.sim.controls.setJobDurations({ pendingMs: 0, claimMs: 0, runMs: 3_600_000 });
      const { taskQueue, workers } = threeWorkers();
      try {
        const grantsBefore = grants();
        const handles = await Promise.all(
          [TG.sales, TG.finance, TG.salesDev, TG.sales, TG.finance, TG.salesDev].map((tableGroupId, n) =>
            s.d.env.client.workflow.start('dataops.profileTableGroup', {
              taskQueue,
              workflowId: `${taskQueue}-hour-${n}`,
              args: [{ tableGroupId, pollIntervalMs: 200, maxPollIntervalMs: 400 }],
            }),
          ),
        );
        const results = Promise.all(handles.map((h) => ending<ProfileTableGroupResult>(h)));
        let done = false;
        void results.then(() => (done = true));
        // The clock runs until every workflow has ended, not for a fixed number of minutes: how many service minutes
        // pass before the three workers have booted and submitted depends on the machine's load (98 in all on an idle
        // machine, 149 beside six busy loops; a cap of 120 failed CI). Twelve hours of it say something is wrong.
        for (let minutes = 0; !done && minutes < 12 * 60; minutes++) {
          s.sim.controls.advanceClock(60_000);
          await new Promise((r) => setTimeout(r, 100));
        }
        if (!done) {
          const statuses = await Promise.all(handles.map(async (h) => (await h.describe()).status.name));
          assert.fail(`every workflow ended within twelve hours of the service's time: ${statuses.join(', ')}`);
        }
        const ends = await results;
        assert.deepEqual(
          ends.map((e) => e.failure ?? e.result?.job.wait.job.status),
          Array(6).fill('completed'),
          workers.map((w) => w.output().slice(-2_000)).join('\n---\n'),
        );
        assert.equal(new Set(ends.map((e) => e.result?.job.jobId)).size, 6, 'a job of its own each');
        assert.ok(grants() - grantsBefore >= 30, `tokens renewed all along (${grants() - grantsBefore} grants)`);
      } finally {
        await Promise.all(workers.map((w) => w.stop('SIGKILL')));
      }
    },
  );
});
