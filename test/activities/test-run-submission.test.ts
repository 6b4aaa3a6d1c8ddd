/**
 * A test run goes through its suite's submitter, whether or not the deployment keeps our submission id in its
 * metadata (until the one path, a deployment proven to keep it had its test runs sent without the submitter). A lost
 * answer is never taken to be another caller's run; a run made for a workflow gone meanwhile is cancelled, by the
 * next worker if need be. On the dev server against the simulator, whose `callerMetadata` variant plays both.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ActivityFailure, ApplicationFailure, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import type { JobSubmitted } from '../../src/contract/types.js';
import { SEED_IDS, type JobRecord, type RunningSimulator } from '../../src/simulator/index.js';
import { runActivity, simDeps, SUBMIT_QUICK_RETRY, submissionsTo, withHarnessWorker } from '../helpers/activities.js';
import { FROZEN, clientFor, faultHits, startTestSimulator, submitterAt } from '../helpers/sim.js';
import { startDevServerEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const TS = SEED_IDS.testSuites;

describe('a test run through its suite’s submitter', () => {
  let t: TestEnv;
  before(async () => {
    t = await startDevServerEnv();
  });
  after(async () => t?.env.teardown());

  /** A simulator with the given `callerMetadata`, and one test run submitted on it first. */
  async function service(callerMetadata: boolean): Promise<RunningSimulator> {
    const { sim } = await startTestSimulator({ jobDurations: FROZEN, variants: { callerMetadata } });
    await submit(sim, TS.financeProd);
    return sim;
  }
  /**
   * The submitter of each suite's last submission: a submitter runs on the task queue of the worker that started it,
   * and each call here has a worker of its own (a workflow's submitter ids carry its task queue).
   */
  const lastSubmitter = new Map<string, string>();
  const submitterOf = (suite: string) => lastSubmitter.get(suite) ?? 'none';
  const submit = async (sim: RunningSimulator, suite: string) => {
    const taskQueue = uniqueTaskQueue();
    lastSubmitter.set(suite, submitterAt(sim.url, taskQueue, 'tests', suite));
    const deps = await simDeps(sim);
    return (await runActivity(
      t.env,
      deps,
      'submitTestRun',
      { targetId: suite },
      SUBMIT_QUICK_RETRY,
      taskQueue,
    )) as JobSubmitted;
  };
  /** The submitter of `suite`'s test runs: none when no submission went through it. */
  const submitterStatus = async (suite: string) => {
    try {
      return (await t.env.client.workflow.getHandle(submitterOf(suite)).describe()).status.name;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return 'never asked';
      throw err;
    }
  };

  test('whether the deployment keeps our id or not, a test run goes through its suite’s submitter', async () => {
    const keeps = await service(true);
    const drops = await service(false);
    try {
      // The seed's suites, one per service: submitter ids are per profile and suite, and both use profile "default".
      const first = await submit(keeps, TS.salesDev);
      assert.equal(keeps.controls.job(first.jobId)?.test_suite_id, TS.salesDev);
      assert.equal(await submitterStatus(TS.salesDev), 'RUNNING', 'asked: it keeps the answer for a retry');
      const second = await submit(drops, TS.salesProd);
      assert.equal(drops.controls.job(second.jobId)?.test_suite_id, TS.salesProd);
      assert.equal(await submitterStatus(TS.salesProd), 'RUNNING', 'asked: it keeps the answer for a retry');
    } finally {
      await keeps.close();
      await drops.close();
    }
  });

  test('a lost answer is never resolved to another caller’s run on the same suite, made meanwhile', async () => {
    const sim = await service(true);
    try {
      const other = await clientFor(sim, 'admin');
      const before = submissionsTo(sim, TS.salesDev);
      // Our request fails in a way that may have committed (it did not); meanwhile another caller, which sends no
      // metadata, submits a test run of the same suite: newer than our watermark, of our suite, not ours.
      const lost = sim.controls.addFault({ kind: 'status', status: 503, method: 'POST', path: '/test-runs' });
      const ours = submit(sim, TS.salesDev);
      await eventually('our request failed', () => faultHits(sim, lost) === 1);
      const theirs = await other.testRuns.submit(TS.salesDev, {});
      const res = await ours;
      assert.notEqual(res.jobId, theirs.id, "not the other caller's run");
      assert.equal(res.reconciled, false, 'sent again once settled: nothing of ours was found');
      assert.equal(submissionsTo(sim, TS.salesDev), before + 2, 'theirs and ours');
    } finally {
      await sim.close();
    }
  });

  test('a schema break in the answer, with nothing created, still fails for good', async () => {
    const sim = await service(true);
    try {
      const before = submissionsTo(sim, TS.salesDev);
      sim.controls.addFault({
        kind: 'respond',
        status: 200,
        body: { unexpected: true },
        method: 'POST',
        path: '/test-runs',
      });
      await assert.rejects(submit(sim, TS.salesDev), (err: unknown) => {
        assert.ok(err instanceof WorkflowFailedError && err.cause instanceof ActivityFailure);
        assert.ok(err.cause.cause instanceof ApplicationFailure);
        assert.equal(err.cause.cause.type, 'UnexpectedResponse');
        return true;
      });
      assert.equal(submissionsTo(sim, TS.salesDev), before);
    } finally {
      await sim.close();
    }
  });

  /**
   * A test run of ours, sent by its suite's submitter (`lock`, on `taskQueue`): its workflow is terminated while the
   * service holds its POST, and the cancel that undoes it is refused `refusals` times (503). `during` runs while the
   * worker does, with the run once created; then the worker stops. A failed cancel fails the batch's attempt, and its
   * retry finds the run and cancels it again.
   */
  async function goneWhileSending(
    sim: RunningSimulator,
    refusals: number,
    during: (created: () => JobRecord | undefined, refused: { id: string }) => Promise<unknown>,
    taskQueue: string,
  ) {
    const ours = () => sim.controls.jobs().filter((j) => j.test_suite_id === TS.salesDev);
    const before = new Set(ours().map((j) => j.id));
    const created = () => ours().find((j) => !before.has(j.id));
    const held = sim.controls.addFault({ kind: 'delay', delay_ms: 3_000, method: 'POST', path: '/test-runs' });
    const refused = sim.controls.addFault({
      kind: 'status',
      status: 503,
      method: 'POST',
      path: '^.*/jobs/[^/]+/cancel$',
      count: refusals,
    });
    await withHarnessWorker(
      t.env,
      await simDeps(sim),
      async () => {
        const handle = await t.env.client.workflow.start('callActivity', {
          taskQueue,
          workflowId: `gone-${taskQueue}`,
          args: ['dataops.submitTestRun', { targetId: TS.salesDev }, SUBMIT_QUICK_RETRY],
        });
        await eventually('our send held', () => faultHits(sim, held) === 1);
        await handle.terminate('the workflow is gone while its send is held');
        await during(created, refused);
      },
      taskQueue,
    );
    assert.equal(ours().length, before.size + 1, 'one run created, none sent again');
    return created()!;
  }

  test('a run sent for a workflow terminated meanwhile is cancelled, even when its first cancel fails', async () => {
    const sim = await service(true);
    try {
      await goneWhileSending(
        sim,
        1,
        async (created, refused) => {
          await eventually(
            'the run cancelled after its first cancel failed',
            () => created()?.status === 'cancel_requested',
          );
          assert.equal(faultHits(sim, refused), 1, 'its first cancel was refused');
        },
        uniqueTaskQueue('gone'),
      );
    } finally {
      await sim.close();
    }
  });

  test('a cancel still refused when its worker stops is sent by the next worker: nothing is left running', async () => {
    const sim = await service(true);
    try {
      // The worker stops once the cancel was refused three times (the batch's attempts): it does not wait for the
      // cancel to be taken, and the cancel is not lost with it.
      const taskQueue = uniqueTaskQueue('gone');
      const created = await goneWhileSending(
        sim,
        1_000,
        (_, refused) => eventually('the cancel tried again', () => faultHits(sim, refused) >= 3, { tries: 2_400 }),
        taskQueue,
      );
      assert.notEqual(sim.controls.job(created.id)?.status, 'cancel_requested', 'not cancelled yet');
      // Another worker on the same task queue, the service taking cancels again: the submitter's cancel goes through.
      sim.controls.clearFaults();
      await withHarnessWorker(
        t.env,
        await simDeps(sim),
        () =>
          eventually(
            'the run cancelled by the next worker',
            () => sim.controls.job(created.id)?.status === 'cancel_requested',
            { tries: 2_400 },
          ),
        taskQueue,
      );
    } finally {
      await sim.close();
    }
  });
});
