/**
 * The per-target lock held by the submitting activity (src/activities/target-lock.ts), on the dev server against the
 * simulator: one submission in flight per target, a lock left behind is taken over only when its owner no longer
 * holds it, an answer lost after the release is recovered from the lock, and a workflow that is gone has what it
 * created cancelled.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { LockHeld } from '../../src/contract/lock-held.js';
import type { JobSubmitted } from '../../src/contract/types.js';
import { LOCK_WORKFLOW_TYPE } from '../../src/activities/target-lock.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { runActivity, simDeps, SUBMIT_QUICK_RETRY, submissionsTo, withProjectWorker } from '../helpers/activities.js';
import { FROZEN, faultHits, startTestSimulator } from '../helpers/sim.js';
import { startDevServerEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;
const OPTIONS = SUBMIT_QUICK_RETRY;

describe('the per-target lock held by the submitting activity', () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  before(async () => {
    t = await startDevServerEnv();
    ({ sim } = await startTestSimulator({ jobDurations: FROZEN }));
  });
  after(async () => {
    await sim?.close();
    await t?.env.teardown();
  });

  const submissions = (target: string) => submissionsTo(sim, target);
  const lockOf = (target: string) => `dataops-submit/default/profiling/${target}`;
  const submit = async (target: string, options = OPTIONS) =>
    (await runActivity(
      t.env,
      await simDeps(sim),
      'submitProfilingRun',
      { targetId: target, lock: lockOf(target) },
      options,
    )) as JobSubmitted | { lockHeldBy: string };
  const describeLock = (target: string, runId?: string) =>
    t.env.client.workflow.getHandle(lockOf(target), runId).describe();
  /** The outcome a released lock run recorded in its termination, and its reason. */
  async function released(target: string, runId?: string): Promise<{ reason: string; outcome: unknown }> {
    const events = (await t.env.client.workflow.getHandle(lockOf(target), runId).fetchHistory()).events ?? [];
    const done = events.at(-1)?.workflowExecutionTerminatedEventAttributes;
    assert.ok(done, 'the lock run ended by terminate');
    const payload = done.details?.payloads?.[0];
    return {
      reason: done.reason ?? '',
      outcome: payload ? defaultPayloadConverter.fromPayload<{ outcome: unknown }>(payload).outcome : undefined,
    };
  }
  /** A lock taken by hand, as a submission of `owner` would have left it. */
  const leftBehind = (
    target: string,
    owner: { workflowId: string; runId: string; activityId: string; freedBy?: 'submitted' },
  ) =>
    t.env.client.workflow.start(LOCK_WORKFLOW_TYPE, {
      workflowId: lockOf(target),
      taskQueue: uniqueTaskQueue('nobody'),
      startDelay: '1 hour',
      workflowIdConflictPolicy: 'FAIL',
      memo: { owner },
      args: [],
    });

  test('a submission releases its lock with its outcome: no child workflow, nothing left held', async () => {
    const before = submissions(TG.finance);
    const res = (await submit(TG.finance)) as JobSubmitted;
    assert.equal(submissions(TG.finance), before + 1);
    const lock: WorkflowExecutionDescription = await describeLock(TG.finance);
    assert.equal(lock.type, LOCK_WORKFLOW_TYPE);
    assert.equal(lock.status.name, 'TERMINATED');
    const { reason, outcome } = await released(TG.finance);
    assert.equal(reason, 'released');
    assert.deepEqual(outcome, res);
  });

  test('while a submission is in flight, a second one on its target is told who holds the lock and sends nothing', async () => {
    const before = submissions(TG.sales);
    const held = sim.controls.addFault({ kind: 'delay', delay_ms: 3_000, method: 'POST', path: '/profiling-runs' });
    const first = submit(TG.sales);
    await eventually('the first submission held by the service', () => faultHits(sim, held) === 1);
    const second = await submit(TG.sales);
    assert.match((second as { lockHeldBy: string }).lockHeldBy, /^workflow act-submitProfilingRun-/);
    const res = (await first) as JobSubmitted;
    assert.equal(submissions(TG.sales), before + 1, 'only the holder sent');
    assert.equal(sim.controls.job(res.jobId)?.table_group_id, TG.sales);
  });

  test('a lock left by an owner that no longer holds it is taken over at once', async () => {
    const finished = (await submit(TG.finance)) as JobSubmitted;
    const stale = await leftBehind(TG.finance, {
      workflowId: 'gone-long-ago',
      runId: randomUUID(),
      activityId: '1',
    });
    const before = submissions(TG.finance);
    const res = (await submit(TG.finance)) as JobSubmitted;
    assert.notEqual(res.jobId, finished.jobId);
    assert.equal(submissions(TG.finance), before + 1, 'it sent: the lock was free to take');
    const { reason } = await released(TG.finance, stale.firstExecutionRunId);
    assert.match(reason, /^taken over: workflow gone-long-ago no longer holds it/);
  });

  test("a wait's own-job lock left held (its release failed) is free once the wait names its job", async () => {
    // A wait that submits its own job then follows it for hours: a lock whose release failed must not hold the target
    // that long. Its owner is pending throughout; its heartbeat details name the job once it was submitted.
    const target = TG.salesDev;
    await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const w = await t.env.client.workflow.start('dataops.profileTableGroup', {
        taskQueue,
        workflowId: `own-job-${randomUUID()}`,
        args: [{ tableGroupId: target, pollIntervalMs: 200, maxPollIntervalMs: 400, heartbeatTimeoutMs: 2_000 }],
      });
      const wait = await eventually('the wait naming its job in its heartbeat', async () => {
        const pending = (await w.describe()).raw.pendingActivities ?? [];
        const own = pending.find((a) => a.activityType?.name === 'dataops.submitAndWaitForJob');
        const payload = own?.heartbeatDetails?.payloads?.[0];
        const details = payload ? defaultPayloadConverter.fromPayload<{ submitted?: unknown }>(payload) : undefined;
        return details?.submitted ? own : undefined;
      });
      const taken = await describeLock(target);
      assert.deepEqual(
        (taken.memo?.['owner'] as { freedBy?: string }).freedBy,
        'submitted',
        "the wait's lock says what frees it",
      );
      const owner = { workflowId: w.workflowId, runId: w.firstExecutionRunId, activityId: wait.activityId ?? '' };
      // Left behind without that mark (a submission activity's lock), the pending owner holds it.
      const plain = await leftBehind(target, owner);
      assert.ok('lockHeldBy' in (await submit(target)), 'a pending owner without the mark holds it');
      await t.env.client.workflow.getHandle(lockOf(target), plain.firstExecutionRunId).terminate('test: next case');
      const stale = await leftBehind(target, { ...owner, freedBy: 'submitted' });
      const before = submissions(target);
      const res = await submit(target);
      assert.ok(!('lockHeldBy' in res), `taken over, not held: ${JSON.stringify(res)}`);
      assert.equal(submissions(target), before + 1);
      const { reason } = await released(target, stale.firstExecutionRunId);
      assert.match(reason, /^taken over/);
      await w.cancel();
      await w.result().catch(() => undefined);
    });
  });

  test('a lock whose owner was terminated a moment ago stays held: an attempt may still be sending', async () => {
    const owner = await t.env.client.workflow.start('callActivity', {
      taskQueue: uniqueTaskQueue('nobody'),
      workflowId: `terminated-owner-${randomUUID()}`,
      args: [],
    });
    await owner.terminate('gone');
    const stale = await leftBehind(TG.sales, {
      workflowId: owner.workflowId,
      runId: owner.firstExecutionRunId,
      activityId: '1',
    });
    const before = submissions(TG.sales);
    const answer = (await submit(TG.sales)) as LockHeld;
    assert.equal(answer.lockHeldBy, `workflow ${owner.workflowId} (terminated; its last attempt may still be sending)`);
    // The workflow asks again in a while rather than every few seconds (each time costs it history events).
    assert.ok(answer.retryAfterMs !== undefined && answer.retryAfterMs > 60_000, String(answer.retryAfterMs));
    assert.ok(answer.retryAfterMs <= 120_000, String(answer.retryAfterMs));
    assert.equal(submissions(TG.sales), before, 'nothing sent');
    await t.env.client.workflow.getHandle(lockOf(TG.sales), stale.firstExecutionRunId).terminate('test over');
  });

  test('an answer lost after the release is recovered from the lock, even with another job on the target since', async () => {
    // Attempt 1 outlives its start-to-close: the service holds its request, then commits it; the attempt releases the
    // lock with the job, and its answer is refused. Another submission then takes the lock and sends. Attempt 2 must
    // return the first job: the job listing alone cannot tell the two apart (profiling runs match by target).
    const target = TG.sales;
    const held = sim.controls.addFault({ kind: 'delay', delay_ms: 3_000, method: 'POST', path: '/profiling-runs' });
    const slow = {
      ...OPTIONS,
      startToCloseTimeout: '2 seconds',
      heartbeatTimeout: undefined,
      retry: { ...OPTIONS.retry, initialInterval: '8 seconds' },
    };
    const before = submissions(target);
    const first = submit(target, slow);
    await eventually('the first submission held by the service', () => faultHits(sim, held) === 1);
    await eventually(
      'the first attempt released its lock',
      async () => (await describeLock(target)).status.name === 'TERMINATED',
      { tries: 200, delayMs: 50 },
    );
    const other = (await submit(target)) as JobSubmitted;
    const res = (await first) as JobSubmitted;
    assert.equal(submissions(target), before + 2, 'two jobs, one each');
    assert.notEqual(res.jobId, other.jobId, 'not the other submission’s job');
    assert.equal(res.reconciled, true, 'recovered, not from its own answer');
  });

  test('on a server that starts the lock at once (no start delay), the lock holds itself until it expires', async () => {
    await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const lock = await t.env.client.workflow.start(LOCK_WORKFLOW_TYPE, {
        taskQueue,
        workflowId: `no-delay-${taskQueue}`,
        args: [{ expiresAtMs: Date.now() + 3_600_000 }],
      });
      await eventually('its first task ran', async () =>
        ((await lock.fetchHistory()).events ?? []).some((e) => e.timerStartedEventAttributes),
      );
      assert.equal((await lock.describe()).status.name, 'RUNNING', 'still held');
      await lock.terminate('released');
    });
  });

  test('a workflow terminated while its submission is held: the job it created is cancelled, the lock released', async () => {
    const target = TG.finance;
    const held = sim.controls.addFault({ kind: 'delay', delay_ms: 3_000, method: 'POST', path: '/profiling-runs' });
    await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const handle = await t.env.client.workflow.start('dataops.profileTableGroup', {
        taskQueue,
        workflowId: `terminated-${taskQueue}`,
        args: [{ tableGroupId: target, pollIntervalMs: 200 }],
      });
      await eventually('the submission held by the service', () => faultHits(sim, held) === 1);
      await handle.terminate('gone mid-submission');
      const job = await eventually('the job it created, cancelled', () =>
        sim.controls
          .jobs()
          .find(
            (j) =>
              j.job_key === 'run-profile' &&
              j.table_group_id === target &&
              (j.status === 'canceled' || j.status === 'cancel_requested'),
          ),
      );
      assert.ok(job);
      // The activity cancels the job before it releases the lock: wait for the release itself, then read its reason.
      await eventually('the lock released', async () => (await describeLock(target)).status.name === 'TERMINATED');
      assert.match((await released(target)).reason, /^undone: its workflow is gone/);
    });
  });
});
