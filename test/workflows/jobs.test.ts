import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { liveProgress } from '../../src/cli/follow.js';
import type {
  'dataops.profileTableGroup' as profileTableGroup,
  'dataops.runTestSuite' as runTestSuite,
} from '../../src/workflows/jobs.js';
import { progressQuery } from '../../src/contract/index.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startTimeSkippingEnv, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const SLOW = { pendingMs: 60_000, claimMs: 60_000, runMs: 600_000, cancelMs: 200, interruptMs: 200 };

describe('profileTableGroup and runTestSuite', () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  before(async () => {
    t = await startTimeSkippingEnv();
    ({ sim } = await startTestSimulator({ jobDurations: SLOW, manualClock: true }));
  });
  after(async () => {
    await sim?.close();
    await t?.env.teardown();
  });

  for (const waitStrategy of ['heartbeat', 'deferrable'] as const)
    test(`the progress query shows the live status and polls while the ${waitStrategy} wait runs, with few signals`, async () => {
      await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
        const handle = await t.env.client.workflow.start<typeof runTestSuite>('dataops.runTestSuite', {
          taskQueue,
          workflowId: `live-${waitStrategy}-${taskQueue}`,
          args: [{ testSuiteId: TS.financeProd, waitStrategy, pollIntervalMs: 200, maxPollIntervalMs: 200 }],
        });
        const job = await eventually('the test run', () =>
          sim.controls.jobs().find((j) => j.test_suite_id === TS.financeProd && j.status === 'pending'),
        );
        // From the submission activity's answer, whatever the strategy.
        const pending = await eventually('the pending status, named', async () => {
          const p = await handle.query(progressQuery);
          return p.jobs[0]?.status === 'pending' ? p : undefined;
        });
        assert.equal(pending.lastStatus, 'pending');
        assert.equal(pending.jobs[0]?.live, true, 'the wait will report');
        assert.ok(pending.jobs[0]?.statusAt, 'pending as of the submission, or of the report');
        assert.equal(pending.jobs[0]?.jobId, job.id);
        // A poll has seen it pending before the clock moves (the deferrable strategy knows "pending" from the
        // submission's answer, before its wait's first poll), so the poll that sees it running is at least the second.
        await eventually('a poll of the pending run', () =>
          sim.controls.requests().some((r) => r.path === `/api/v1/jobs/${job.id}`),
        );
        sim.controls.advanceClock(SLOW.pendingMs + SLOW.claimMs);
        const running = await eventually('the live running status', async () => {
          const p = await handle.query(progressQuery);
          return p.jobs[0]?.status === 'running' ? p : undefined;
        });
        assert.equal(running.jobs[0]?.jobId, job.id);
        assert.equal(running.jobs[0]?.live, false, 'the default budget, one report, is spent');
        // As the wait saw it (the worker's clock; the test server's skipped workflow clock cannot be compared).
        assert.ok(Number.isFinite(Date.parse(running.jobs[0]?.statusAt ?? '')), 'running as of its report');
        assert.ok(running.polls > 1, `polls counted while waiting: ${running.polls}`);
        assert.equal(running.claims, 1);
        assert.equal(running.currentWait?.polls, running.polls, 'the running wait, as of its report');
        if (waitStrategy === 'heartbeat') {
          // The CLI's live line: the report and the heartbeat count the same wait's polls, so the newer one counts,
          // never both (it used to add them).
          const { live } = await liveProgress(handle);
          const beat = (await handle.describe()).raw.pendingActivities?.[0]?.heartbeatDetails?.payloads?.[0];
          const beatPolls = beat ? (defaultPayloadConverter.fromPayload<{ polls: number }>(beat).polls ?? 0) : 0;
          assert.ok(live.polls >= running.polls, `${live.polls} polls live, ${running.polls} reported`);
          assert.ok(live.polls <= Math.max(running.polls, beatPolls), `${live.polls} live; beat ${beatPolls}`);
          assert.equal(live.status, 'running');
        }
        sim.controls.advanceClock(SLOW.runMs);
        const result = await handle.result();
        const done = await handle.query(progressQuery);
        assert.equal(done.jobs[0]?.status, 'completed');
        assert.equal(done.polls, result.job.wait.polls, 'live counts give way to the final ones');
        const signals = ((await handle.fetchHistory()).events ?? []).filter(
          (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'jobStatus',
        ).length;
        // Running, the budget's one report (claimed is not reported).
        assert.equal(signals, 1);
      });
    });

  test('an interrupted profiling run resumes and completes: duration from started_at, claims and interrupts counted', async () => {
    const deps = await simDeps(sim);
    const result = await withProjectWorker(t.env, deps, async (taskQueue) => {
      const handle = await t.env.client.workflow.start<typeof profileTableGroup>('dataops.profileTableGroup', {
        taskQueue,
        workflowId: `profile-${taskQueue}`,
        args: [{ tableGroupId: TG.finance, pollIntervalMs: 100, maxPollIntervalMs: 100 }],
      });
      const job = await eventually('the profiling job', () =>
        sim.controls.jobs().find((j) => j.job_key === 'run-profile' && j.status === 'pending'),
      );
      const polls = () => sim.controls.requests().filter((r) => r.path === `/api/v1/jobs/${job.id}`).length;
      sim.controls.advanceClock(SLOW.pendingMs + SLOW.claimMs + 100_000);
      sim.controls.shutdownScheduler();
      sim.controls.advanceClock(SLOW.interruptMs);
      const seen = polls();
      await eventually('polls that see the interrupted run', () => polls() >= seen + 3);
      sim.controls.restartScheduler();
      sim.controls.advanceClock(SLOW.claimMs + SLOW.runMs);
      const out = await handle.result();
      const progress = await handle.query(progressQuery);
      assert.equal(progress.stage, 'done');
      assert.deepEqual(
        progress.jobs.map((j) => [j.role, j.jobId, j.status]),
        [['profiling', job.id, 'completed']],
      );
      return out;
    });
    const w = result.job.wait;
    assert.equal(w.job.status, 'completed');
    assert.equal(w.claims, 2);
    assert.equal(w.interrupts, 1);
    const started = Date.parse(w.job.started_at!);
    assert.ok(Date.parse(w.job.claimed_at!) > started);
    assert.equal(w.durationMs, Date.parse(w.job.completed_at!) - started);
    assert.equal(
      w.durationMs,
      SLOW.runMs + SLOW.interruptMs + SLOW.claimMs,
      'the interrupted time counts, measured from started_at',
    );
    assert.equal(result.summary.tableCount, 2);
    assert.equal(result.summary.scorePercent, 91.7);
    assert.equal(result.job.reconciled, false);
  });

  test('a job that ends in error fails the workflow with JobFailed and its error_message', async () => {
    sim.controls.planJobs({
      job_key: 'run-tests',
      target_id: TS.financeProd,
      fail_with: 'relation "finance.ledger" does not exist',
    });
    const err = await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const handle = await t.env.client.workflow.start<typeof runTestSuite>('dataops.runTestSuite', {
        taskQueue,
        workflowId: `tests-${taskQueue}`,
        args: [{ testSuiteId: TS.financeProd, pollIntervalMs: 100 }],
      });
      await eventually('the test run', () =>
        sim.controls
          .jobs()
          .find((j) => j.job_key === 'run-tests' && j.test_suite_id === TS.financeProd && j.status === 'pending'),
      );
      sim.controls.advanceClock(SLOW.pendingMs + SLOW.claimMs + SLOW.runMs);
      return handle.result().catch((e: unknown) => e);
    });
    assert.ok(err instanceof WorkflowFailedError);
    assert.ok(err.cause instanceof ApplicationFailure);
    assert.equal(err.cause.type, 'JobFailed');
    assert.equal(err.cause.nonRetryable, true);
    assert.match(err.cause.message, /test_run job .* failed: relation "finance\.ledger" does not exist/);
  });

  test('the deferrable strategy: one poll per attempt, the retry policy as timer', async () => {
    const deps = await simDeps(sim);
    const result = await withProjectWorker(t.env, deps, async (taskQueue) => {
      const handle = await t.env.client.workflow.start<typeof runTestSuite>('dataops.runTestSuite', {
        taskQueue,
        workflowId: `deferred-${taskQueue}`,
        args: [{ testSuiteId: TS.salesProd, waitStrategy: 'deferrable', pollIntervalMs: 100, maxPollIntervalMs: 200 }],
      });
      const job = await eventually('the test run', () =>
        sim.controls.jobs().find((j) => j.test_suite_id === TS.salesProd && j.status === 'pending'),
      );
      await eventually(
        'a few deferred polls',
        () => sim.controls.requests().filter((r) => r.path === `/api/v1/jobs/${job.id}`).length >= 3,
      );
      sim.controls.advanceClock(SLOW.pendingMs + SLOW.claimMs + SLOW.runMs);
      const out = await handle.result();
      const history = await handle.fetchHistory();
      const events = history.events ?? [];
      assert.deepEqual(
        events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []),
        ['dataops.submitTestRun', 'dataops.checkJob'],
        'the submission (which holds its per-target lock), then one checkJob, which also reads the summary as it sees the run complete',
      );
      assert.equal(
        events.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes).length,
        0,
        'no child workflow: the lock is not one',
      );
      return out;
    });
    assert.equal(result.job.wait.job.status, 'completed');
    assert.ok(result.summary.resultCounts);
  });

  test('a job paused longer than maxStatusDurationMs is reported once (progress, memo), and the wait goes on', async () => {
    const result = await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const handle = await t.env.client.workflow.start<typeof runTestSuite>('dataops.runTestSuite', {
        taskQueue,
        workflowId: `paused-${taskQueue}`,
        args: [{ testSuiteId: TS.salesDev, pollIntervalMs: 100, maxPollIntervalMs: 200, maxStatusDurationMs: 1_000 }],
      });
      const job = await eventually('the test run', () =>
        sim.controls.jobs().find((j) => j.test_suite_id === TS.salesDev && j.status === 'pending'),
      );
      sim.controls.advanceClock(SLOW.pendingMs + SLOW.claimMs + 1_000);
      sim.controls.pauseJob(job.id);
      sim.controls.advanceClock(SLOW.interruptMs); // pause_requested → paused
      const progress = await eventually('the stuck job to be reported', async () => {
        const p = await handle.query(progressQuery);
        return p.stuck ? p : undefined;
      });
      assert.equal(progress.stuck?.jobId, job.id);
      assert.equal(progress.stuck?.status, 'paused');
      assert.ok((progress.stuck?.forMs ?? 0) > 1_000);
      assert.deepEqual(
        progress.jobs.map((j) => j.status),
        ['paused'],
        'the live status, not null',
      );
      const memo = (await handle.describe()).memo as { stuck?: { status: string } } | undefined;
      assert.equal(memo?.stuck?.status, 'paused');
      sim.controls.resumeJob(job.id); // resume_requested, then a new claim, then the rest of the run
      sim.controls.advanceClock(SLOW.pendingMs + SLOW.claimMs + SLOW.runMs);
      return handle.result();
    });
    assert.equal(result.job.wait.job.status, 'completed', 'reported, then waited to the end');
  });

  test("onStatusStuck 'fail': the stuck job is cancelled and the workflow fails JobStuck, saying so", async () => {
    const err = await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const handle = await t.env.client.workflow.start<typeof runTestSuite>('dataops.runTestSuite', {
        taskQueue,
        workflowId: `stuck-${taskQueue}`,
        args: [
          {
            testSuiteId: TS.salesDev,
            pollIntervalMs: 100,
            maxPollIntervalMs: 200,
            maxStatusDurationMs: 1_000,
            onStatusStuck: 'fail',
          },
        ],
      });
      const job = await eventually('the test run', () =>
        sim.controls.jobs().find((j) => j.test_suite_id === TS.salesDev && j.status === 'pending'),
      );
      sim.controls.advanceClock(SLOW.pendingMs + SLOW.claimMs + 1_000);
      sim.controls.pauseJob(job.id);
      sim.controls.advanceClock(SLOW.interruptMs); // pause_requested → paused
      await eventually('the cancel request', () => sim.controls.job(job.id)?.status === 'cancel_requested');
      sim.controls.advanceClock(SLOW.cancelMs);
      const failure = await handle.result().catch((e: unknown) => e);
      assert.equal(sim.controls.job(job.id)?.status, 'canceled', 'no job is left running by a failed workflow');
      return failure;
    });
    assert.ok(err instanceof WorkflowFailedError);
    assert.ok(err.cause instanceof ApplicationFailure);
    assert.equal(err.cause.type, 'JobStuck');
    assert.equal(err.cause.nonRetryable, true);
    assert.match(
      err.cause.message,
      /stayed paused for \d+ ms, longer than maxStatusDurationMs 1000; it was cancelled \(final status canceled\)/,
    );
  });

  test('a score rolled up after the run completed (TestGen) is waited for, not reported missing', async () => {
    const { sim: rolling } = await startTestSimulator({
      jobDurations: { pendingMs: 50, claimMs: 20, runMs: 100, cancelMs: 50, interruptMs: 50 },
      variants: { scoreRollupMs: 3_000 },
    });
    try {
      const polling = { pollIntervalMs: 100, maxPollIntervalMs: 100 };
      const [tests, profiled] = await withProjectWorker(t.env, await simDeps(rolling), (taskQueue) =>
        Promise.all([
          t.env.client.workflow.execute<typeof runTestSuite>('dataops.runTestSuite', {
            taskQueue,
            workflowId: `rollup-${taskQueue}`,
            args: [{ testSuiteId: TS.salesDev, ...polling }],
          }),
          // TestGen 5.134 rolls a profiling run's score up the same way (seen by the peer tests).
          t.env.client.workflow.execute<typeof profileTableGroup>('dataops.profileTableGroup', {
            taskQueue,
            workflowId: `rollup-profile-${taskQueue}`,
            args: [{ tableGroupId: TG.finance, ...polling }],
          }),
        ]),
      );
      for (const [result, path] of [
        [tests, 'test-runs'],
        [profiled, 'profiling-runs'],
      ] as const) {
        assert.equal(result.job.wait.job.status, 'completed');
        assert.notEqual(result.summary.scorePercent, null, `the ${path} score, once rolled up`);
        const fetches = rolling.controls.requests().filter((r) => r.path === `/api/v1/${path}/${result.job.jobId}`);
        assert.ok(fetches.length > 1, `the ${path} summary fetched again while the score was missing`);
      }
    } finally {
      await rolling.close();
    }
  });
});
