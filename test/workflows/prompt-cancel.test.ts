/**
 * A cancel reaches the job at once, whatever the heartbeat cadence. A job's wait hears of the workflow's cancel only at
 * its next heartbeat (up to a minute with a long heartbeat timeout); the workflow cancels the job it knows without
 * waiting for that. Shown by the order of the history's events, not by timing: the cancel
 * activity is scheduled before the wait's end is recorded.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CancelledFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { progressQuery } from '../../src/contract/index.js';
import type { FaultInput, JobRecord } from '../../src/simulator/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { eventually } from '../helpers/wait.js';
import { faultHits } from '../helpers/sim.js';
import { activitiesInFlight, scheduledIdOfEnd } from '../helpers/activity-events.js';
import { describeEvents } from '../helpers/history-shapes.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const SLOW = { pendingMs: 600_000, claimMs: 600_000, runMs: 6_000_000, cancelMs: 200, interruptMs: 200 };
/** A wait that hears of a cancel late: its heartbeats reach Temporal at most every 48 s (80 % of the timeout). */
const LATE_HEARING = { pollIntervalMs: 100, maxPollIntervalMs: 100, heartbeatTimeoutMs: 60_000 };

describe('a workflow cancel reaches the job before the wait hears of it', () => {
  const s = devServerAndSimulator({ jobDurations: SLOW });

  const known = () => new Set(s.sim.controls.jobs().map((j) => j.id));
  const newJob = (key: string, target: string, seen: Set<string>) =>
    eventually(`a new ${key} job`, () =>
      s.sim.controls
        .jobs()
        .find(
          (j) => j.job_key === key && (j.table_group_id === target || j.test_suite_id === target) && !seen.has(j.id),
        ),
    );

  /**
   * The history's event ids of the cancel activity's scheduling and of the wait's end (however it ended), and the
   * cancel activity's heartbeat timeout (s).
   */
  async function order(handle: WorkflowHandle, waitType: string) {
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = new Map<string, string>();
    let cancelScheduled = Infinity;
    let waitEnded = Infinity;
    let cancelHeartbeatS = Infinity;
    for (const e of events) {
      const id = Number(e.eventId);
      const s = e.activityTaskScheduledEventAttributes;
      if (s) scheduled.set(String(e.eventId), s.activityType?.name ?? '');
      if (s?.activityType?.name === 'dataops.cancelJob') {
        cancelScheduled = Math.min(cancelScheduled, id);
        cancelHeartbeatS = Number(s.heartbeatTimeout?.seconds ?? Infinity);
      }
      const ended = scheduledIdOfEnd(e);
      if (ended && scheduled.get(ended) === waitType) waitEnded = Math.min(waitEnded, id);
    }
    return { cancelScheduled, waitEnded, cancelHeartbeatS };
  }

  /** `waitType`: the wait whose end the cancel goes before (null: the job's wait never started). */
  async function expectCancelled(handle: WorkflowHandle, job: JobRecord, waitType: string | null) {
    const err = await handle.result().catch((e: unknown) => e);
    assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure, String(err));
    assert.equal(s.sim.controls.job(job.id)?.status, 'canceled');
    assert.equal(s.sim.controls.counters().cancels[job.id], 1, 'cancelled once, though two endings asked for it');
    const { remoteCancel } = await handle.query(progressQuery);
    assert.equal(remoteCancel?.confirmed, true);
    assert.equal(remoteCancel?.alreadyTerminal, false, 'the wait saw our own cancel; the job had not ended before');
    const { cancelScheduled, waitEnded, cancelHeartbeatS } = await order(handle, waitType ?? '');
    // A cancel whose worker dies mid-call is tried again seconds later, not after 20 s (the calls' heartbeat timeout).
    assert.ok(cancelHeartbeatS <= 5, `the cancel call's heartbeat timeout is ${cancelHeartbeatS} s`);
    if (waitType === null) return;
    assert.ok(waitEnded < Infinity, 'the wait ended');
    assert.ok(
      cancelScheduled < waitEnded,
      `the cancel (event ${cancelScheduled}) went before the wait ended (event ${waitEnded})`,
    );
  }

  test('a cancel while the submission is in flight reaches the job as soon as its answer names it', async () => {
    const before = known();
    const fault = s.sim.controls.addFault({ kind: 'delay', delay_ms: 1_000, method: 'POST', path: '/profiling-runs' });
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const handle = await s.d.env.client.workflow.start('dataops.profileTableGroup', {
        taskQueue,
        workflowId: `prompt-submit-${taskQueue}`,
        args: [{ tableGroupId: TG.finance, ...LATE_HEARING }],
      });
      await eventually('the submission in flight', () => faultHits(s.sim, fault) === 1);
      await handle.cancel();
      await expectCancelled(handle, await newJob('run-profile', TG.finance, before), null);
    });
  });

  /**
   * A profiling run that completes while the workflow's prompt cancel of it meets `fault` at the service: the wait,
   * which has not heard of the cancel yet (its heartbeats reach Temporal every 48 s), sees the job completed and
   * answers. Returns the workflow's result, its record of the cancel and its jobs, and its history's events.
   */
  async function completesWhileCancelMeets(name: string, fault: Omit<FaultInput, 'method' | 'path'>, input = {}) {
    const before = known();
    return withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const handle = await s.d.env.client.workflow.start('dataops.profileTableGroup', {
        taskQueue,
        workflowId: `${name}-${taskQueue}`,
        args: [{ tableGroupId: TG.salesDev, ...LATE_HEARING, ...input }],
      });
      const job = await newJob('run-profile', TG.salesDev, before);
      s.sim.controls.setJobDurations({ pendingMs: 0, claimMs: 0 }, job.id);
      await eventually('running', () => s.sim.controls.job(job.id)?.status === 'running');
      await eventually('the workflow to know it', async () => (await handle.query(progressQuery)).jobs.length === 1);
      // Its wait's first heartbeat has reached Temporal: the next comes 48 s later, so it hears of the cancel late. A
      // wait still to start when the cancel came heard of it at once (under load), and never saw the job complete.
      await eventually('the wait heartbeating', async () =>
        ((await handle.describe()).raw.pendingActivities ?? []).some(
          (a) => a.activityType?.name === 'dataops.waitForJob' && a.lastHeartbeatTime,
        ),
      );
      const met = s.sim.controls.addFault({ ...fault, method: 'POST', path: `/jobs/${job.id}/cancel` });
      await handle.cancel();
      await eventually('the cancel at the service', () => faultHits(s.sim, met) >= 1);
      s.sim.controls.setJobDurations({ runMs: 0 }, job.id);
      // A run that ended otherwise says how, and what its history shows of the wait and the cancel.
      const result = (await handle.result().catch(async (err: unknown) => {
        const chain: string[] = [];
        for (let e: unknown = err; e instanceof Error; e = e.cause) chain.push(`${e.name}: ${e.message}`);
        const { lines } = describeEvents((await handle.fetchHistory()).events ?? []);
        throw new Error(`the workflow did not complete: ${chain.join(' <- ')}\nits events:\n${lines.join('\n')}`);
      })) as { job: { wait: { job: { status: string } } } };
      assert.equal(result.job.wait.job.status, 'completed', 'the job completed before the cancel reached it');
      assert.equal(s.sim.controls.job(job.id)?.status, 'completed');
      const { remoteCancel, jobs } = await handle.query(progressQuery);
      const events = (await handle.fetchHistory()).events ?? [];
      const cancels = events.filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'dataops.cancelJob',
      );
      assert.equal(cancels.length, 1, 'one cancel');
      // The workflow did not end with its cancel in flight: the cancel activity ended before the workflow did.
      assert.deepEqual(activitiesInFlight(events), [], 'the cancel activity ended in the history, before the workflow');
      const completedRecord = {
        jobId: job.id,
        finalStatus: 'completed',
        alreadyTerminal: true,
        confirmed: true,
        reason: 'workflow_cancelled',
        error: null,
      };
      return { remoteCancel, jobs, events, cancelEventId: String(cancels[0]!.eventId), completedRecord };
    });
  }

  test('a job that completes while its prompt cancel is in flight: the workflow waits for that cancel, says so, and completes', async () => {
    // The cancel is held at the service while the job completes.
    const { remoteCancel, completedRecord } = await completesWhileCancelMeets('prompt-late', {
      kind: 'delay',
      delay_ms: 2_000,
    });
    assert.deepEqual(
      remoteCancel && { ...remoteCancel, error: null },
      completedRecord,
      'the cancel it made is recorded as it went: the job had already completed',
    );
  });

  test("a job that completes while its prompt cancel cannot reach the service: the wait's answer ends the cancel, recorded as the job ended", async () => {
    // The service refuses every cancel of it: an outage of that route, for longer than the cancel's whole budget.
    const { remoteCancel, jobs, events, cancelEventId, completedRecord } = await completesWhileCancelMeets(
      'prompt-outage',
      { kind: 'status', status: 503, count: 100_000 },
      { cancelTimeoutMs: 20_000 },
    );
    assert.deepEqual(
      remoteCancel,
      completedRecord,
      'the job is recorded as its wait saw it (completed), not as a cancel left unconfirmed',
    );
    assert.deepEqual(
      jobs.map((j) => j.status),
      ['completed'],
    );
    const withdrawn = events.filter(
      (e) => String(e.activityTaskCancelRequestedEventAttributes?.scheduledEventId) === cancelEventId,
    );
    assert.equal(withdrawn.length, 1, 'the cancel still trying was withdrawn, its end awaited');
  });

  test('a cancel during a profiling wait that may submit the test run reaches the profiling run at once', async () => {
    const before = known();
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const handle = await s.d.env.client.workflow.start('dataops.dataQualityPipeline', {
        taskQueue,
        workflowId: `prompt-then-${taskQueue}`,
        args: [{ tableGroupId: TG.sales, testSuiteId: TS.salesProd, testGeneration: 'skip', ...LATE_HEARING }],
      });
      const job = await newJob('run-profile', TG.sales, before);
      s.sim.controls.setJobDurations({ pendingMs: 0, claimMs: 0 }, job.id);
      await eventually('running', () => s.sim.controls.job(job.id)?.status === 'running');
      await eventually('the workflow to know it', async () => (await handle.query(progressQuery)).jobs.length === 1);
      await handle.cancel();
      await expectCancelled(handle, job, 'dataops.waitForJob');
      assert.equal(s.sim.controls.jobs().filter((j) => !before.has(j.id)).length, 1, 'no test run was submitted');
    });
  });
});
