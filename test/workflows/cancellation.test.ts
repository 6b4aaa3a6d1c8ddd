import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  WorkflowFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import { progressQuery } from '../../src/contract/index.js';
import type { JobRecord } from '../../src/simulator/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { timeSkippingAndSimulator } from '../helpers/dev-and-sim.js';
import { eventually } from '../helpers/wait.js';
import { faultHits } from '../helpers/sim.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
// Jobs stay put unless the test moves them; a cancel completes 200 ms after it is requested.
const SLOW = { pendingMs: 600_000, claimMs: 600_000, runMs: 6_000_000, cancelMs: 200, interruptMs: 200 };

describe('cancelling a workflow cancels the remote job', () => {
  const s = timeSkippingAndSimulator({ jobDurations: SLOW });

  const newJob = (key: string, target: string, known: Set<string>) =>
    eventually(`a new ${key} job`, () =>
      s.sim.controls
        .jobs()
        .find(
          (j) => j.job_key === key && (j.table_group_id === target || j.test_suite_id === target) && !known.has(j.id),
        ),
    );
  const known = () => new Set(s.sim.controls.jobs().map((j) => j.id));

  async function expectCancelled(handle: WorkflowHandle, job: JobRecord) {
    const err = await handle.result().catch((e: unknown) => e);
    assert.ok(err instanceof WorkflowFailedError, `expected WorkflowFailedError, got ${String(err)}`);
    assert.ok(err.cause instanceof CancelledFailure, 'the workflow ended as cancelled');
    assert.equal((await handle.describe()).status.name, 'CANCELLED');
    assert.equal(s.sim.controls.job(job.id)?.status, 'canceled', 'the remote job is canceled');
    assert.equal(s.sim.controls.counters().cancels[job.id], 1, 'cancelled exactly once');
    const progress = await handle.query(progressQuery);
    assert.deepEqual(progress.remoteCancel, {
      jobId: job.id,
      finalStatus: 'canceled',
      alreadyTerminal: false,
      confirmed: true,
      reason: 'workflow_cancelled',
      error: null,
    });
    assert.equal(progress.stage, 'cancelled');
    const memo = (await handle.describe()).memo as { remoteCancel?: { finalStatus: string } } | undefined;
    assert.equal(memo?.remoteCancel?.finalStatus, 'canceled', 'the final status is recorded in the memo');
  }

  const profileArgs = { tableGroupId: TG.finance, pollIntervalMs: 100, maxPollIntervalMs: 100 };

  test('while the submission is in flight: the submission finishes, then the job is cancelled', async () => {
    const before = known();
    const fault = s.sim.controls.addFault({ kind: 'delay', delay_ms: 1_500, method: 'POST', path: '/profiling-runs' });
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const handle = await s.d.env.client.workflow.start('dataops.profileTableGroup', {
        taskQueue,
        workflowId: `c-submit-${taskQueue}`,
        args: [profileArgs],
      });
      await eventually('the submission to reach the service', () => faultHits(s.sim, fault) === 1);
      assert.equal(s.sim.controls.jobs().length, before.size, 'cancel arrives before the job exists');
      await handle.cancel();
      const job = await newJob('run-profile', TG.finance, before);
      await expectCancelled(handle, job);
    });
  });

  for (const stage of ['pending', 'running', 'interrupted'] as const) {
    test(`while the profiling job is ${stage}`, async () => {
      const before = known();
      await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
        const handle = await s.d.env.client.workflow.start('dataops.profileTableGroup', {
          taskQueue,
          workflowId: `c-${stage}-${taskQueue}`,
          args: [profileArgs],
        });
        const job = await newJob('run-profile', TG.finance, before);
        if (stage !== 'pending') s.sim.controls.setJobDurations({ pendingMs: 0, claimMs: 0 }, job.id);
        if (stage === 'interrupted') {
          await eventually('running', () => s.sim.controls.job(job.id)?.status === 'running');
          s.sim.controls.interruptJob(job.id);
        }
        await eventually(stage, () => s.sim.controls.job(job.id)?.status === stage);
        await eventually(
          'the workflow to poll it',
          () => (s.sim.controls.requests().filter((r) => r.path === `/api/v1/jobs/${job.id}`).length ?? 0) > 1,
        );
        await handle.cancel();
        await expectCancelled(handle, job);
      });
    });
  }

  test('during the test run of a pipeline', async () => {
    const before = known();
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const handle = await s.d.env.client.workflow.start('dataops.dataQualityPipeline', {
        taskQueue,
        workflowId: `c-pipeline-${taskQueue}`,
        args: [
          {
            tableGroupId: TG.finance,
            testSuiteId: TS.financeProd,
            pollIntervalMs: 100,
            maxPollIntervalMs: 100,
            testGeneration: 'skip',
          },
        ],
      });
      const profiling = await newJob('run-profile', TG.finance, before);
      s.sim.controls.setJobDurations({ pendingMs: 0, claimMs: 0, runMs: 0 }, profiling.id);
      const testRun = await newJob('run-tests', TS.financeProd, before);
      await eventually('the test run to be polled', () =>
        s.sim.controls.requests().some((r) => r.path === `/api/v1/jobs/${testRun.id}`),
      );
      await handle.cancel();
      await expectCancelled(handle, testRun);
      assert.equal(s.sim.controls.job(profiling.id)?.status, 'completed', 'the finished profiling run is left alone');
      assert.equal(s.sim.controls.counters().cancels[profiling.id], undefined);
    });
  });

  test('callers can opt out: cancelRemoteJob false leaves the job running', async () => {
    const before = known();
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const handle = await s.d.env.client.workflow.start('dataops.profileTableGroup', {
        taskQueue,
        workflowId: `c-optout-${taskQueue}`,
        args: [{ ...profileArgs, cancelRemoteJob: false }],
      });
      const job = await newJob('run-profile', TG.finance, before);
      await eventually('polled', () => s.sim.controls.requests().some((r) => r.path === `/api/v1/jobs/${job.id}`));
      await handle.cancel();
      const err = await handle.result().catch((e: unknown) => e);
      assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure);
      assert.equal(s.sim.controls.job(job.id)?.status, 'pending');
      assert.equal(s.sim.controls.counters().cancels[job.id], undefined);
      assert.equal((await handle.query(progressQuery)).remoteCancel, null);
      // Ended at once: not once its wait heard of the cancel at its next heartbeat (seconds later).
      const events = (await handle.fetchHistory()).events ?? [];
      assert.ok(!events.some((e) => e.activityTaskCanceledEventAttributes), 'the wait was not waited for');
    });
  });

  test('cancelRemoteJob false: a job that completes right after the cancel still ends the workflow cancelled', async () => {
    // The wait hears of the cancel only at its next heartbeat (seconds); a job that completes before then used to end
    // the cancelled workflow completed, with the job (#75: a Python caller's cancel 2.5 s after the job appeared).
    const before = known();
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const handle = await s.d.env.client.workflow.start('dataops.profileTableGroup', {
        taskQueue,
        workflowId: `c-optout-done-${taskQueue}`,
        args: [{ ...profileArgs, cancelRemoteJob: false }],
      });
      const job = await newJob('run-profile', TG.finance, before);
      await eventually('polled', () => s.sim.controls.requests().some((r) => r.path === `/api/v1/jobs/${job.id}`));
      await handle.cancel();
      s.sim.controls.setJobDurations({ pendingMs: 0, claimMs: 0, runMs: 0 }, job.id); // it completes now
      const err = await handle.result().catch((e: unknown) => e);
      assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure, `ended: ${String(err)}`);
      assert.equal(s.sim.controls.counters().cancels[job.id], undefined, 'left alone');
    });
  });

  /** Starts profileTableGroup and waits until its job is polled. */
  async function startPolled(taskQueue: string, id: string, extra: Record<string, unknown> = {}) {
    const before = known();
    const handle = await s.d.env.client.workflow.start('dataops.profileTableGroup', {
      taskQueue,
      workflowId: `${id}-${taskQueue}`,
      args: [{ ...profileArgs, ...extra }],
    });
    const job = await newJob('run-profile', TG.finance, before);
    await eventually('polled', () => s.sim.controls.requests().some((r) => r.path === `/api/v1/jobs/${job.id}`));
    return { handle, job };
  }

  test('a garbled answer to the cancel is retried until the job is confirmed canceled', async () => {
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const { handle, job } = await startPolled(taskQueue, 'c-garbled');
      s.sim.controls.addFault({ kind: 'malformed_json', method: 'POST', path: `/jobs/${job.id}/cancel` });
      await handle.cancel();
      await expectCancelled(handle, job);
    });
  });

  test('a cancel that cannot be confirmed fails RemoteCancelUnconfirmed instead of ending "cancelled"', async () => {
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      // The cancel keeps trying for cancelTimeoutMs (its own budget), then gives up and says so.
      const { handle, job } = await startPolled(taskQueue, 'c-unconfirmed', { cancelTimeoutMs: 3_000 });
      s.sim.controls.addFault({
        kind: 'respond',
        status: 404,
        body: { detail: 'not found' },
        method: 'POST',
        path: `/jobs/${job.id}/cancel`,
        count: 100,
      });
      await handle.cancel();
      const err = await handle.result().catch((e: unknown) => e);
      assert.ok(err instanceof WorkflowFailedError, String(err));
      assert.ok(err.cause instanceof ApplicationFailure, `not a clean cancellation: ${String(err.cause)}`);
      assert.equal(err.cause.type, 'RemoteCancelUnconfirmed');
      assert.match(err.cause.message, /may still be running/);
      assert.equal((await handle.describe()).status.name, 'FAILED');
      const progress = await handle.query(progressQuery);
      assert.equal(progress.remoteCancel?.confirmed, false);
      assert.equal(progress.remoteCancel?.reason, 'workflow_cancelled');
      assert.equal(s.sim.controls.job(job.id)?.status, 'pending', 'indeed still there: the report is true');
      s.sim.controls.clearFaults();
    });
  });

  test('a wait that fails for good (a schema break) cancels the job before the workflow fails', async () => {
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const { handle, job } = await startPolled(taskQueue, 'c-failed-wait');
      s.sim.controls.addFault({
        kind: 'respond',
        status: 200,
        body: { surprise: true },
        method: 'GET',
        path: `/api/v1/jobs/${job.id}`,
      });
      const err = await handle.result().catch((e: unknown) => e);
      assert.ok(err instanceof WorkflowFailedError && err.cause instanceof ActivityFailure, String(err));
      assert.equal((err.cause.cause as ApplicationFailure).type, 'UnexpectedResponse');
      assert.equal(s.sim.controls.job(job.id)?.status, 'canceled', 'not left running with nobody watching');
      const progress = await handle.query(progressQuery);
      assert.equal(progress.remoteCancel?.reason, 'workflow_failed');
      assert.equal(progress.remoteCancel?.confirmed, true);
    });
  });
});
