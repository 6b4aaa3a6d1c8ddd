/** The pipeline through what production brings: an outage, an expiring token, a 24-hour job, a worker restart. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ActivityFailure, WorkflowFailedError } from '@temporalio/client';
import {
  progressQuery,
  type DataQualityPipelineInput,
  type DataQualityPipelineResult,
} from '../../src/contract/index.js';
import { SEED_IDS, SEED_USERS, type RunningSimulator } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startDevServerEnv, startTimeSkippingEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const FAST = { pendingMs: 50, claimMs: 20, runMs: 100, cancelMs: 50, interruptMs: 50 };
const HOUR = 3_600_000;
const base = { pollIntervalMs: 100, maxPollIntervalMs: 200 };

describe('dataQualityPipeline: durability (outages, token expiry, long jobs, worker restarts)', () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  before(async () => {
    t = await startTimeSkippingEnv();
    ({ sim } = await startTestSimulator({ jobDurations: FAST, orderDurations: { plannedMs: 20, runMs: 50 } }));
  });
  after(async () => {
    await sim?.close();
    await t?.env.teardown();
  });

  const run = async (input: DataQualityPipelineInput) =>
    withProjectWorker(t.env, await simDeps(sim), (taskQueue) =>
      t.env.client.workflow.execute('dataops.dataQualityPipeline', {
        taskQueue,
        workflowId: `dq-${taskQueue}`,
        args: [input],
      }),
    ) as Promise<DataQualityPipelineResult>;

  test('an outage of about 10 minutes is ridden out; a tolerance shorter than the outage fails the pipeline', async () => {
    // 15 refusals in a row: with backoff up to a minute, about 10 minutes (skipped here) before the call succeeds.
    // The second outage does not end: the waits' own reads of the summary (in real time, not skipped) consume refusals
    // too, so a counted outage could end within the shorter tolerance, and the pipeline pass.
    const outage = (count = 15) =>
      sim.controls.addFault({ kind: 'status', status: 503, method: 'GET', path: '/api/v1/test-runs/', count });
    const input = { ...base, tableGroupId: TG.finance, testSuiteId: TS.financeProd, testGeneration: 'skip' as const };
    outage();
    const result = await run(input);
    assert.equal(result.status, 'passed', 'the default tolerance (6 hours) outlasts the outage');
    sim.controls.clearFaults();
    outage(1_000_000);
    const err = await run({ ...input, outageToleranceMs: 120_000 }).catch((e: unknown) => e);
    sim.controls.clearFaults();
    assert.ok(err instanceof WorkflowFailedError && err.cause instanceof ActivityFailure, String(err));
    assert.match(String(err.cause.cause?.message ?? err.cause.cause), /timeout|503|ServerError/i);
  });

  test('a token that expires 4 hours into the pipeline is refreshed by one new login; no call fails', async () => {
    const deps = await simDeps(sim);
    const logins = () => sim.controls.requests().filter((r) => r.path === '/v2/login').length;
    const before = logins();
    const result = await withProjectWorker(t.env, deps, async (taskQueue) => {
      sim.controls.setJobDurations({ runMs: 5 * HOUR });
      try {
        const handle = await t.env.client.workflow.start('dataops.dataQualityPipeline', {
          taskQueue,
          workflowId: `dq-token-${taskQueue}`,
          args: [{ ...base, tableGroupId: TG.finance, testSuiteId: TS.financeProd, expectedDurationMs: HOUR }],
        });
        await eventually('the profiling run to be running', () =>
          sim.controls
            .jobs()
            .find(
              (j) =>
                j.job_key === 'run-profile' &&
                j.status === 'running' &&
                j.table_group_id === TG.finance &&
                j.created_at > Date.now() - HOUR,
            ),
        );
        sim.controls.advanceClock(4 * HOUR + 60_000); // the session token is now expired on the service
        sim.controls.advanceClock(HOUR); // and the profiling run completes
        sim.controls.setJobDurations({ runMs: FAST.runMs });
        const out = (await handle.result()) as DataQualityPipelineResult;
        const history = await handle.fetchHistory();
        const failed = history.events?.filter((e) => e.activityTaskFailedEventAttributes) ?? [];
        assert.equal(failed.length, 0, 'no activity failed');
        return out;
      } finally {
        sim.controls.setJobDurations({ runMs: FAST.runMs });
      }
    });
    assert.equal(result.testRun.summary.status, 'completed');
    assert.equal(logins() - before, 2, 'the first login and one refresh');
    assert.equal(
      sim.controls.requests().filter((r) => r.status === 401).length >= 1,
      true,
      'the expired token was refused once',
    );
  });

  test('a 24-hour job keeps the history small, and no secret enters it', async () => {
    const deps = await simDeps(sim);
    const result = await withProjectWorker(t.env, deps, async (taskQueue) => {
      sim.controls.setJobDurations({ runMs: 24 * HOUR });
      try {
        const handle = await t.env.client.workflow.start('dataops.dataQualityPipeline', {
          taskQueue,
          workflowId: `dq-24h-${taskQueue}`,
          args: [
            {
              pollIntervalMs: 100,
              maxPollIntervalMs: 100,
              tableGroupId: TG.finance,
              testSuiteId: TS.financeProd,
              onGateFailure: 'report',
              expectedDurationMs: HOUR,
            },
          ],
        });
        const job = await eventually('the profiling run', () =>
          sim.controls
            .jobs()
            .find(
              (j) =>
                j.job_key === 'run-profile' &&
                j.table_group_id === TG.finance &&
                j.status === 'running' &&
                j.durations.runMs === 24 * HOUR,
            ),
        );
        await eventually(
          'many polls',
          () => sim.controls.requests().filter((r) => r.path === `/api/v1/jobs/${job.id}`).length >= 30,
        );
        sim.controls.setJobDurations({ runMs: FAST.runMs });
        sim.controls.advanceClock(24 * HOUR);
        await handle.result();
        const history = await handle.fetchHistory();
        const text = JSON.stringify(history);
        assert.ok(!text.includes(SEED_USERS.admin.password), 'no password in history');
        assert.ok(!/bearer /i.test(text), 'no bearer token in history');
        // The scale issue's bound: at most 50 events per pipeline, at any job length, live status reports included.
        const reports = history.events?.filter((e) => e.workflowExecutionSignaledEventAttributes).length ?? 0;
        assert.ok(reports >= 1, 'the live status was reported');
        assert.ok((history.events?.length ?? 0) <= 50, `history has ${history.events?.length} events`);
        console.log(`24-hour pipeline: ${history.events?.length} history events, ${reports} status reports`);
        return { events: history.events?.length ?? 0, polls: await handle.query(progressQuery) };
      } finally {
        sim.controls.setJobDurations({ runMs: FAST.runMs });
      }
    });
    assert.ok(result.polls.polls >= 30, `${result.polls.polls} polls kept out of history`);
  });

  // On the dev server: after a worker stops, the real server moves the workflow off the stopped worker's sticky queue;
  // the Java test server never does, so there the new worker would never get the workflow task.
  test('a worker stopped mid-wait and a new one started: no job is resubmitted and the pipeline completes', async () => {
    const dev = await startDevServerEnv();
    try {
      await restartScenario(dev);
    } finally {
      await dev.env.teardown();
    }
  });

  async function restartScenario(d: TestEnv): Promise<void> {
    const taskQueue = uniqueTaskQueue('restart');
    const before = { ...sim.controls.counters().submissions };
    sim.controls.setJobDurations({ runMs: 10 * HOUR });
    try {
      // The first worker (both of its task queues) stops mid-wait, as a process would.
      const { handle, job } = await withProjectWorker(
        d.env,
        await simDeps(sim),
        async () => {
          const handle = await d.env.client.workflow.start('dataops.dataQualityPipeline', {
            taskQueue,
            workflowId: `dq-restart-${taskQueue}`,
            args: [
              {
                ...base,
                tableGroupId: TG.finance,
                testSuiteId: TS.financeProd,
                onGateFailure: 'report',
                testGeneration: 'skip',
              },
            ],
          });
          const job = await eventually('the profiling run', () =>
            sim.controls
              .jobs()
              .find(
                (j) =>
                  j.job_key === 'run-profile' &&
                  j.table_group_id === TG.finance &&
                  j.durations.runMs === 10 * HOUR &&
                  j.status !== 'completed',
              ),
          );
          await eventually(
            'polls',
            () => sim.controls.requests().filter((r) => r.path === `/api/v1/jobs/${job.id}`).length >= 3,
          );
          return { handle, job };
        },
        taskQueue,
      );
      sim.controls.setJobDurations({ runMs: FAST.runMs });
      sim.controls.advanceClock(10 * HOUR);
      const result = (await withProjectWorker(
        d.env,
        await simDeps(sim),
        () => handle.result(),
        taskQueue,
      )) as DataQualityPipelineResult;
      assert.equal(result.profiling.job.jobId, job.id, 'the new worker reattached to the same job');
      const after = sim.controls.counters().submissions;
      assert.equal((after[TG.finance] ?? 0) - (before[TG.finance] ?? 0), 1, 'one profiling submission');
      assert.equal((after[TS.financeProd] ?? 0) - (before[TS.financeProd] ?? 0), 1, 'one test-run submission');
    } finally {
      sim.controls.setJobDurations({ runMs: FAST.runMs });
    }
  }
});
