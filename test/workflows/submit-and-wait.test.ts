/**
 * A job run (src/workflows/submit-and-wait.ts): submitted by its ask of the target's submitter, then followed by its
 * wait, whatever the strategy; the job named in the progress from its ask's answer, and every way the run ends with a
 * job created cancelling it, never leaving it running unwatched. Dev server and the simulator, through real sockets.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  WorkflowFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { requestsQuery } from '../../src/exactly-once/messages.js';
import { progressQuery, type Progress } from '../../src/contract/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { activityTypes } from '../helpers/fresh-run.js';
import { cancelWhileSubmitting, devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { eventually } from '../helpers/wait.js';
import { faultHits, submitterAt } from '../helpers/sim.js';

type Event = temporal.api.history.v1.IHistoryEvent;

const TG = SEED_IDS.tableGroups;
const poll = { pollIntervalMs: 100, maxPollIntervalMs: 100 };

describe('a job run: asked, then waited for', () => {
  const s = devServerAndSimulator();

  const profilingRuns = (tableGroupId: string) =>
    s.sim.controls.jobs().filter((j) => j.job_key === 'run-profile' && j.table_group_id === tableGroupId);

  /** Profiles `tableGroupId` on a worker of its own, runs `during`, and returns its ending, history and progress. */
  async function profile(
    tableGroupId: string,
    input: Record<string, unknown> = {},
    during: (handle: WorkflowHandle) => Promise<void> = async () => undefined,
  ) {
    return withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const handle = await s.d.env.client.workflow.start('dataops.profileTableGroup', {
        taskQueue,
        workflowId: `own-${taskQueue}`,
        args: [{ tableGroupId, ...poll, ...input }],
      });
      await during(handle);
      const error = await handle.result().then(
        () => undefined,
        (err: unknown) => err,
      );
      const events: Event[] = (await handle.fetchHistory()).events ?? [];
      return { error, events, types: activityTypes(events), progress: await handle.query(progressQuery), handle };
    });
  }

  test('the ask submits the run, the wait follows it; the progress names the run while it runs', async () => {
    s.sim.controls.planJobs({ job_key: 'run-profile', target_id: TG.finance, durations: { runMs: 3_000 } });
    const before = profilingRuns(TG.finance).length;
    let seen: Progress | undefined;
    const run = await profile(TG.finance, {}, async (handle) => {
      seen = await eventually('the run named while it runs', async () => {
        const p = await handle.query(progressQuery);
        return p.jobs[0]?.status === 'running' ? p : undefined;
      });
    });
    assert.equal(run.error, undefined, String(run.error));
    assert.deepEqual(run.types, ['submitProfilingRun', 'waitForJob']);
    const created = profilingRuns(TG.finance).slice(before);
    assert.equal(created.length, 1, 'exactly one profiling run');
    assert.equal(seen?.jobs[0]?.jobId, created[0]?.id);
    assert.equal(seen?.jobs[0]?.role, 'profiling');
    assert.equal(seen?.stage, 'waiting for profiling');
    assert.deepEqual(
      run.progress.jobs.map((j) => [j.jobId, j.status, j.live]),
      [[created[0]?.id, 'completed', false]],
    );
  });

  test('a run still queued after a report interval is named while it waits to start', async () => {
    s.sim.controls.planJobs({ job_key: 'run-profile', target_id: TG.sales, durations: { pendingMs: 8_000 } });
    const run = await profile(TG.sales, {}, async (handle) => {
      const p = await eventually(
        'the queued run named',
        async () => {
          const q = await handle.query(progressQuery);
          return q.jobs[0] ? q : undefined;
        },
        { tries: 200, delayMs: 100 },
      );
      assert.equal(p.jobs[0]?.status, 'pending', 'named while still pending');
      assert.equal(s.sim.controls.job(p.jobs[0]?.jobId ?? '')?.status, 'pending');
    });
    assert.equal(run.error, undefined, String(run.error));
  });

  test('a cancel while the ask is submitting: the submission finishes, the run is cancelled, the workflow ends cancelled', async () => {
    const before = profilingRuns(TG.finance).length;
    // Long enough that the run could not complete before its cancel.
    s.sim.controls.planJobs({ job_key: 'run-profile', target_id: TG.finance, durations: { runMs: 60_000 } });
    const run = await profile(TG.finance, {}, cancelWhileSubmitting(s, '/profiling-runs'));
    assert.ok(
      run.error instanceof WorkflowFailedError && run.error.cause instanceof CancelledFailure,
      String(run.error),
    );
    const created = profilingRuns(TG.finance).slice(before);
    assert.equal(created.length, 1, 'the held submission created its run');
    assert.equal(s.sim.controls.job(created[0]?.id ?? '')?.status, 'canceled', 'and it was not left running');
    assert.equal(run.progress.remoteCancel?.jobId, created[0]?.id, 'the workflow cancelled it itself');
    assert.equal(run.progress.remoteCancel?.confirmed, true);
    // Settled at once by the workflow (its held send's answer heard), not when the ask heard of the cancel.
    assert.ok(run.types.includes('settleAsk'), `its request settled: ${run.types.join(', ')}`);
  });

  test('a failure after the submission names the run: it is cancelled, and the workflow fails with that failure', async () => {
    const before = profilingRuns(TG.finance).length;
    s.sim.controls.planJobs({ job_key: 'run-profile', target_id: TG.finance, durations: { runMs: 60_000 } });
    // A status answer that breaks its schema: final, not retried.
    s.sim.controls.addFault({ kind: 'respond', status: 200, body: { nope: true }, method: 'GET', path: '/jobs/' });
    const run = await profile(TG.finance);
    const cause = run.error instanceof WorkflowFailedError ? run.error.cause : undefined;
    assert.ok(cause instanceof ActivityFailure && cause.cause instanceof ApplicationFailure, String(run.error));
    assert.equal(cause.cause.type, 'UnexpectedResponse');
    const created = profilingRuns(TG.finance).slice(before);
    assert.equal(created.length, 1);
    assert.equal(run.progress.remoteCancel?.jobId, created[0]?.id, 'the run the failure named was cancelled');
    assert.equal(s.sim.controls.job(created[0]?.id ?? '')?.status, 'canceled');
    assert.deepEqual(run.types.slice(0, 2), ['submitProfilingRun', 'waitForJob']);
    assert.ok(!run.types.includes('settleAsk'), 'named by the failure, not looked up');
  });

  test('a refused submission fails the workflow as the submission would: no job, no lookup', async () => {
    const before = profilingRuns(TG.finance).length;
    s.sim.controls.addFault({ kind: 'status', status: 422, method: 'POST', path: '/profiling-runs' });
    const run = await profile(TG.finance);
    const cause = run.error instanceof WorkflowFailedError ? run.error.cause : undefined;
    assert.ok(cause instanceof ActivityFailure && cause.cause instanceof ApplicationFailure, String(run.error));
    assert.equal(profilingRuns(TG.finance).length, before, 'nothing created');
    assert.deepEqual(run.types, ['submitProfilingRun']);
    assert.deepEqual(run.progress.jobs, []);
  });

  test("a target whose submitter sends another's submission: the ask waits its turn, then is sent once", async () => {
    // The service holds the first submission to the target; the second waits behind it in the submitter's queue.
    const held = s.sim.controls.addFault({
      kind: 'delay',
      delay_ms: 3_000,
      method: 'POST',
      path: `/table-groups/${TG.salesDev}/profiling-runs`,
    });
    const before = profilingRuns(TG.salesDev).length;
    let sentWhileQueued = -1;
    const run = await profile(TG.salesDev, {}, async (first) => {
      await eventually('the first submission held', () => faultHits(s.sim, held) === 1);
      const second = await s.d.env.client.workflow.start('dataops.profileTableGroup', {
        taskQueue: (await first.describe()).taskQueue,
        workflowId: `${first.workflowId}-second`,
        args: [{ tableGroupId: TG.salesDev, ...poll }],
      });
      const submitter = s.d.env.client.workflow.getHandle(
        submitterAt(s.sim.url, (await first.describe()).taskQueue, 'profiling', TG.salesDev),
      );
      await eventually('the second queued behind the first', async () =>
        (await submitter.query(requestsQuery)).queued.some((id) => id.startsWith(`${second.workflowId}/`)),
      );
      sentWhileQueued = profilingRuns(TG.salesDev).length - before;
      assert.equal(await second.result().then(() => 'completed'), 'completed');
    });
    assert.equal(run.error, undefined, String(run.error));
    assert.ok(sentWhileQueued <= 1, `the second sent nothing while queued (${sentWhileQueued} sent)`);
    assert.equal(profilingRuns(TG.salesDev).length, before + 2, 'one run each');
    assert.deepEqual(run.types, ['submitProfilingRun', 'waitForJob'], 'asked once: no asking again');
  });
});
