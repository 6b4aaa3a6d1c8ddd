/**
 * The wait's deadline, `maxWaitMs`. A wait whose job completed shortly before it keeps its optional reads (the test
 * run's score, TestGen's generation follow-up) short of it: it returns what it has, the workflow reads or waits for
 * the rest, and the run completes. Before, the wait timed out in those reads, and the workflow failed a job that had
 * completed (and cancelled its follow-up). A job still running at the deadline is cancelled, and the workflow fails
 * `JobWaitTimedOut`, saying so. On the dev server, in real time: the deadline is the server's own clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import type { DataQualityPipelineResult, RunTestSuiteResult } from '../../src/contract/index.js';
import { SEED_IDS, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/index.js';
import { runOnFreshSimulator } from '../helpers/fresh-run.js';
import { startDevServerEnv, type TestEnv } from '../helpers/temporal.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const JOBS = { pendingMs: 50, claimMs: 20, runMs: 500, cancelMs: 50, interruptMs: 50 };
/** Each wait may last 10 s; the heartbeat timeout stays below that. */
const DEADLINE = { maxWaitMs: 10_000, heartbeatTimeoutMs: 4_000, pollIntervalMs: 1_000, maxPollIntervalMs: 1_000 };

describe('the wait deadline, maxWaitMs', () => {
  let t: TestEnv;
  before(async () => {
    t = await startDevServerEnv();
  });
  after(async () => {
    await t?.env.teardown();
  });

  /** Runs `workflow` on a fresh simulator; returns its ending, the activities it scheduled and the jobs. */
  async function run<R>(
    workflow: string,
    input: Record<string, unknown>,
    options: SimulatorOptions,
    prepare: (sim: RunningSimulator) => void = () => undefined,
  ) {
    const out = await runOnFreshSimulator<R, undefined>(t.env, {
      workflow,
      input,
      idPrefix: 'deadline',
      simulator: { jobDurations: JOBS, ...options },
      prepare,
    });
    const jobs = out.sim.controls.jobs();
    return { ...out, jobs, generation: jobs.filter((j) => j.job_key === 'run-test-generation') };
  }

  test('a score rolled up after the wait would have timed out is read by the workflow', async () => {
    // The run completes within a second or two; TestGen shows its score 12 s after that, past the wait's 10 s.
    const out = await run<RunTestSuiteResult>(
      'dataops.runTestSuite',
      { testSuiteId: TS.salesDev, ...DEADLINE },
      { variants: { scoreRollupMs: 12_000 } },
    );
    assert.equal(out.error, undefined, `the run completed, so the workflow does: ${String(out.error)}`);
    assert.equal(out.result?.job.wait.job.status, 'completed');
    assert.notEqual(out.result?.summary.scorePercent, null, 'the score, read by the workflow once rolled up');
    assert.deepEqual(out.activities, ['waitForJob', 'getTestRunSummary'], 'the wait left the summary to the workflow');
  });

  for (const waitStrategy of ['heartbeat', 'deferrable'] as const)
    test(`a generation follow-up outlasting the profiling wait's deadline is left to the workflow (${waitStrategy})`, async () => {
      // Followed inline for up to 10 polls (10 s) from the run's end: past the profiling wait's 10 s. It must hand over
      // in time, and the workflow's own wait (10 s more) sees the follow-up end.
      const out = await run<DataQualityPipelineResult>(
        'dataops.dataQualityPipeline',
        {
          tableGroupId: TG.sales,
          testSuiteId: TS.salesProd,
          testGeneration: 'wait',
          onGateFailure: 'report',
          waitStrategy,
          ...DEADLINE,
        },
        {},
        (sim) => sim.controls.planJobs({ job_key: 'run-test-generation', durations: { runMs: 11_000 } }),
      );
      assert.equal(out.error, undefined, `profiling completed, so the pipeline goes on: ${String(out.error)}`);
      const [generated] = out.generation;
      assert.equal(generated?.status, 'completed', 'the follow-up was not cancelled');
      assert.equal(out.result?.generation?.jobId, generated?.id);
      assert.equal(out.result?.generation?.wait.job.status, 'completed');
      const wait = waitStrategy === 'heartbeat' ? 'waitForJob' : 'checkJob';
      assert.deepEqual(
        out.activities.filter((a) => a === wait),
        [wait, wait, wait],
        'profiling, then the follow-up in a wait of its own, then the test run',
      );
    });

  for (const waitStrategy of ['heartbeat', 'deferrable'] as const)
    test(`a job still running at maxWaitMs is cancelled, and the workflow fails JobWaitTimedOut (${waitStrategy})`, async () => {
      const out = await run<RunTestSuiteResult>(
        'dataops.runTestSuite',
        { testSuiteId: TS.salesDev, waitStrategy, ...DEADLINE, maxWaitMs: 3_000 },
        { jobDurations: { ...JOBS, runMs: 3_600_000 } },
      );
      assert.ok(out.error instanceof WorkflowFailedError, String(out.error));
      const failure = out.error.cause;
      assert.ok(failure instanceof ApplicationFailure, String(failure));
      assert.equal(failure.type, 'JobWaitTimedOut');
      assert.equal(failure.nonRetryable, true);
      const [job] = out.jobs;
      assert.equal(job?.status, 'canceled', 'the job was not left running');
      assert.equal(
        failure.message,
        `gave up waiting for test_run job ${job?.id} after maxWaitMs 3000 ms; it was cancelled (final status canceled)`,
      );
      assert.ok(failure.cause, "the wait's own failure is kept as the cause");
      assert.deepEqual(
        [out.progress.remoteCancel?.jobId, out.progress.remoteCancel?.confirmed, out.progress.remoteCancel?.reason],
        [job?.id, true, 'workflow_failed'],
      );
    });
});
