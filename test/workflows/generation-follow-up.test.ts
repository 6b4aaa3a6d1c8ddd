/**
 * TestGen's generation follow-up, followed by the profiling wait itself for a short while: when it ends in that window
 * the pipeline has no wait of its own for it; when it outlasts the window the workflow waits for it as before; and a
 * cancel that arrives while the profiling wait follows it cancels it, confirmed, although the workflow never heard of
 * it. A fresh simulator per test: TestGen queues the follow-up after a table group's first completed run only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import type { DataQualityPipelineResult } from '../../src/contract/index.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { runOnFreshSimulator, scheduledActivities } from '../helpers/fresh-run.js';
import { startDevServerEnv, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';
import { faultHits } from '../helpers/sim.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const FAST = { pendingMs: 50, claimMs: 20, runMs: 100, cancelMs: 50, interruptMs: 50 };
const HOUR = 3_600_000;

describe('the generation follow-up, followed by the profiling wait', () => {
  let t: TestEnv;
  before(async () => {
    // The dev server, not the time-skipping one: its test server wedges a workflow that cancels an activity in the
    // task where that activity completes (temporalio/sdk-typescript#1058), which a cancel during a lookup can do.
    t = await startDevServerEnv();
  });
  after(async () => {
    await t?.env.teardown();
  });

  /** Starts a sales pipeline (testGeneration wait) on a fresh simulator; `act` runs while it does. */
  async function pipeline<T>(
    pollIntervalMs: number,
    prepare: (sim: RunningSimulator) => void,
    act: (sim: RunningSimulator, handle: { id: string; cancel: () => Promise<unknown> }) => Promise<T>,
    extra: Record<string, unknown> = {},
  ) {
    const run = await runOnFreshSimulator<DataQualityPipelineResult, T>(t.env, {
      workflow: 'dataops.dataQualityPipeline',
      idPrefix: 'follow-up',
      simulator: { jobDurations: FAST },
      input: {
        tableGroupId: TG.sales,
        testSuiteId: TS.salesProd,
        testGeneration: 'wait',
        onGateFailure: 'report',
        pollIntervalMs,
        maxPollIntervalMs: pollIntervalMs,
        ...extra,
      },
      prepare,
      act,
    });
    const { events } = run;
    const cancelAt = events.findIndex((e) => e.workflowExecutionCancelRequestedEventAttributes);
    return {
      ...run,
      events: events.length,
      attempts: events.flatMap((e) => e.activityTaskStartedEventAttributes?.attempt ?? []),
      // The job each jobStatus report named.
      reported: events.flatMap((e) => {
        const data = e.workflowExecutionSignaledEventAttributes?.input?.payloads?.[0]?.data;
        return data ? [(JSON.parse(Buffer.from(data).toString()) as { jobId: string }).jobId] : [];
      }),
      beforeCancel: cancelAt < 0 ? [] : scheduledActivities(events.slice(0, cancelAt)),
    };
  }

  const generationJobs = (sim: RunningSimulator) =>
    sim.controls.jobs().filter((j) => j.job_key === 'run-test-generation');

  test('a follow-up that ends within the window needs no wait of its own', async () => {
    const run = await pipeline(
      100,
      () => undefined,
      async () => undefined,
    );
    assert.deepEqual(run.activities, ['waitForJob', 'waitForJob'], 'profiling (and its follow-up), then the test run');
    const [generated] = generationJobs(run.sim);
    assert.equal(run.result?.generation?.jobId, generated?.id);
    assert.equal(run.result?.generation?.wait.job.status, 'completed');
    assert.ok((run.result?.generation?.wait.polls ?? 0) >= 1, 'the follow-up was polled by the profiling wait');
    assert.deepEqual(
      run.progress.jobs.map((j) => [j.role, j.status, j.live]),
      [
        ['profiling', 'completed', false],
        ['generation', 'completed', false],
        ['test_run', 'completed', false],
      ],
    );
  });

  test('with the deferrable strategy, the next attempts poll the follow-up: no wait of its own either', async () => {
    const run = await pipeline(
      100,
      (sim) => sim.controls.planJobs({ job_key: 'run-test-generation', durations: { runMs: 2_000 } }),
      async () => undefined,
      { waitStrategy: 'deferrable' },
    );
    assert.deepEqual(run.activities, ['checkJob', 'checkJob'], 'profiling (and its follow-up), then the test run');
    assert.equal(run.result?.generation?.jobId, generationJobs(run.sim)[0]?.id);
    assert.equal(run.result?.generation?.wait.job.status, 'completed');
  });

  test('a follow-up that outlasts the window is waited for by the workflow, as before', async (ctx) => {
    const run = await pipeline(
      100, // a 5-second window
      (sim) => sim.controls.planJobs({ job_key: 'run-test-generation', durations: { runMs: 8_000 } }),
      async () => undefined,
    );
    assert.deepEqual(run.activities, ['waitForJob', 'waitForJob', 'waitForJob'], 'profiling, generation, test run');
    assert.equal(run.result?.generation?.wait.job.status, 'completed');
    const id = generationJobs(run.sim)[0]?.id;
    assert.equal(run.result?.generation?.jobId, id);
    // Handed over running, and shown so at once: its own wait does not report that status again (4 events).
    assert.deepEqual(
      run.reported.filter((jobId) => jobId === id),
      [],
    );
    ctx.diagnostic(
      `${run.events} history events (search attributes not registered here), ${run.reported.length} reports`,
    );
  });

  test('a follow-up the profiling wait cannot read is left to the workflow, and the profiling wait does not fail', async () => {
    const run = await pipeline(
      100, // a 5-second window
      (sim) => sim.controls.planJobs({ job_key: 'run-test-generation', durations: { runMs: 3_000 } }),
      async (sim) => {
        const job = await eventually('the follow-up queued', () => generationJobs(sim)[0]);
        // Its next status read answers garbage: the profiling wait stops following it (a garbled body is retryable,
        // so it is not the wait's failure) and the workflow waits for it itself.
        return sim.controls.addFault({ kind: 'malformed_json', method: 'GET', path: `/jobs/${job.id}`, count: 1 });
      },
    );
    assert.equal(run.error, undefined, String(run.error));
    assert.equal(faultHits(run.sim, run.acted), 1, 'the garbled answer was read');
    assert.deepEqual(run.activities, ['waitForJob', 'waitForJob', 'waitForJob'], 'profiling, generation, test run');
    assert.deepEqual(run.attempts.slice(0, 2), [1, 1], 'neither wait failed an attempt over it');
    const [generated] = generationJobs(run.sim);
    assert.equal(run.result?.generation?.jobId, generated?.id);
    assert.equal(run.result?.generation?.wait.job.status, 'completed');
  });

  test('cancelled while the profiling wait follows the follow-up: it is cancelled too, and confirmed', async () => {
    const run = await pipeline(
      1_000, // a 10-second window
      (sim) => sim.controls.planJobs({ job_key: 'run-test-generation', durations: { runMs: HOUR } }),
      async (sim, handle) => {
        const job = await eventually('the follow-up running', () =>
          generationJobs(sim).find((j) => j.status === 'running'),
        );
        await handle.cancel();
        return job.id;
      },
    );
    assert.ok(
      run.error instanceof WorkflowFailedError && run.error.cause instanceof CancelledFailure,
      String(run.error),
    );
    assert.deepEqual(
      run.beforeCancel,
      ['waitForJob'],
      'cancelled within the window: the workflow had no wait of its own',
    );
    assert.equal(run.sim.controls.job(run.acted)?.status, 'canceled', 'the follow-up was not left running');
    assert.equal(run.progress.remoteCancel?.jobId, run.acted);
    assert.equal(run.progress.remoteCancel?.confirmed, true);
    // The wait may submit the test run, so a cancel waits for its answer: the follow-up it was following is in it
    // (or, when the cancel cut the following short, the workflow looks for it).
    assert.ok(run.activities.includes('cancelJob'));
    assert.ok(!run.activities.includes('submitTestRun'), 'nothing was submitted after the cancel');
    assert.equal(run.sim.controls.jobs().filter((j) => j.job_key === 'run-tests').length, 0, 'no test run');
  });

  test('cancelled while the workflow looks for the follow-up it has not seen yet: it is cancelled too', async () => {
    const run = await pipeline(
      100,
      (sim) => {
        sim.controls.planJobs({ job_key: 'run-profile', durations: { runMs: 3_000 } });
        sim.controls.planJobs({ job_key: 'run-test-generation', durations: { runMs: HOUR } });
      },
      async (sim, handle) => {
        await eventually('the profiling run', () =>
          sim.controls.jobs().find((j) => j.job_key === 'run-profile' && j.status === 'running'),
        );
        // The listing does not show the follow-up yet (as a lagging listing would): the profiling wait finds nothing,
        // and the workflow looks on, every 5 s.
        const hidden = sim.controls.addFault({
          kind: 'respond',
          status: 200,
          method: 'GET',
          path: '/projects/DEMO/jobs',
          count: 1_000,
          body: { items: [], page: 1, limit: 100, total: 0 },
        });
        await eventually("the workflow's own lookup", () => faultHits(sim, hidden) >= 2, { tries: 2_400 });
        const job = generationJobs(sim).find((j) => j.status === 'running' || j.status === 'pending');
        assert.ok(job, 'TestGen queued the follow-up');
        sim.controls.clearFaults();
        await handle.cancel();
        return job.id;
      },
      { generationGraceMs: 60_000 },
    );
    assert.ok(
      run.error instanceof WorkflowFailedError && run.error.cause instanceof CancelledFailure,
      String(run.error),
    );
    assert.deepEqual(
      run.beforeCancel.filter((a) => a !== 'findGenerationJob'),
      ['waitForJob'],
      'cancelled while looking: no wait for the follow-up had started',
    );
    assert.equal(run.sim.controls.job(run.acted)?.status, 'canceled', 'the follow-up was not left running');
    assert.equal(run.progress.remoteCancel?.jobId, run.acted);
    assert.equal(run.progress.remoteCancel?.confirmed, true);
  });
});
