/**
 * A worker dies while the test run its wait asked for is being sent by the suite's submitter (the POST held, its
 * heartbeats throttled). The batch's next attempt, on another worker, must look for the run before it sends anything,
 * and find it by its id (the deployment keeps it): one run, followed to the end, never a second one, and never the
 * earlier run on the same suite. (Until the one path, such a run was sent by the wait itself.)
 *
 * And a run sent for a workflow that is gone by its answer (terminated while the POST was held), whose cancel is
 * refused, then its worker killed: the cancel must outlive that worker (src/exactly-once/requester-gone.ts), and the next
 * worker sends it. Nothing is left running unwatched.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JobRun } from '../../src/contract/index.js';
import { ending } from '../helpers/ending.js';
import { cellIds } from '../helpers/matrix.js';
import { ABOUT_A_SECOND, worldOfCells } from '../helpers/matrix-world.js';
import { killedBeforeItsRecord } from '../helpers/unrecorded-send.js';
import { eventually } from '../helpers/wait.js';

const LONG = { timeout: 10 * 60_000 };

describe('a test run being sent by a worker that dies', () => {
  const world = worldOfCells(1);
  const polling = { pollIntervalMs: 200, maxPollIntervalMs: 400 };
  const start = (taskQueue: string, name: string, input: Record<string, unknown>) =>
    world().client.workflow.start('dataops.runTestSuite', {
      taskQueue,
      workflowId: `${name}-${Date.now()}`,
      args: [{ testSuiteId: cellIds(0).target, ...polling, ...input }],
    });
  /** A run of ours on the suite first: the simulator then shows our id, so a lost answer is found by it alone. */
  const proven = async (queue: string) => {
    world().startWorker(`${queue}-first`);
    const end = await ending<{ job: JobRun }>(await start(`${queue}-first`, `${queue}-first`, {}));
    assert.equal(end.outcome, 'ok', end.failure);
    return end.result!.job;
  };
  const runsOnTheSuite = async () =>
    (await world().controls.jobs()).filter((j) => j.job_key === 'run-tests' && j.test_suite_id === cellIds(0).target);

  test('the next attempt finds the run by its id and sends nothing', LONG, async () => {
    const w = world();
    const ids = cellIds(0);
    const queue = 'death-test-run';
    // An earlier run is there to be wrongly taken.
    const first = await proven(queue);
    const before = (await runsOnTheSuite()).length;
    const handle = await killedBeforeItsRecord(w, queue, `/test-suites/${ids.target}/test-runs`, () =>
      start(queue, 'test-run-second', { heartbeatTimeoutMs: 20_000 }),
    );
    const end = await ending<{ job: JobRun }>(handle);
    assert.equal(end.outcome, 'ok', end.failure);
    assert.equal((await runsOnTheSuite()).length - before, 1, 'this one: nothing sent twice');
    assert.notEqual(end.result!.job.jobId, first.jobId, 'not the earlier run');
    assert.equal(end.result!.job.reconciled, true, 'found by its id, not answered');
    const types = ((await handle.fetchHistory()).events ?? []).flatMap(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
    );
    assert.equal(types[0], 'dataops.submitTestRun', `the ask asked for it: ${types.join(', ')}`);
  });

  test(
    'a run created for a workflow gone meanwhile, its cancel refused, is cancelled after its worker dies',
    LONG,
    async () => {
      const w = world();
      const queue = 'death-undo';
      await proven(queue);
      const before = new Set((await runsOnTheSuite()).map((j) => j.id));
      const created = async () => (await runsOnTheSuite()).find((j) => !before.has(j.id));
      // The run outlasts the test: only a cancel ends it.
      await w.controls.jobDurations({ ...ABOUT_A_SECOND, runMs: 600_000 });
      try {
        const victim = w.startWorker(queue);
        const post = await w.controls.addFault({
          kind: 'delay',
          delay_ms: 3_000,
          method: 'POST',
          path: `/test-suites/${cellIds(0).target}/test-runs`,
          count: 1,
        });
        const refused = await w.controls.addFault({
          kind: 'status',
          status: 503,
          method: 'POST',
          path: '^.*/jobs/[^/]+/cancel$',
          count: 1_000,
        });
        const handle = await start(queue, 'undo-gone', {});
        await eventually('the send held', async () => (await w.controls.hits(post.id)) === 1, {
          tries: 600,
          delayMs: 50,
        });
        await handle.terminate('gone while its test run is sent');
        // Refused twice: the batch's cancel, and its retry's.
        await eventually('the cancel refused twice', async () => (await w.controls.hits(refused.id)) >= 2, {
          tries: 1_200,
          delayMs: 50,
        });
        await victim.stop('SIGKILL');
        await w.controls.clearFaults();
        const run = await created();
        assert.ok(run, 'the held POST created a run');
        assert.notEqual(run.status, 'cancel_requested', 'not cancelled before its worker died');
        w.startWorker(queue);
        await eventually(
          'the run cancelled by the next worker',
          async () => ['cancel_requested', 'canceled'].includes((await created())?.status ?? ''),
          { tries: 1_200, delayMs: 100 },
        );
        assert.equal((await runsOnTheSuite()).length - before.size, 1, 'one run created, none sent again');
      } finally {
        await w.controls.jobDurations(ABOUT_A_SECOND);
      }
    },
  );
});
