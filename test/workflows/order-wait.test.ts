/**
 * An order run's wait is bounded like a job's: after `maxWaitMs` the workflow stops the order and fails
 * JobWaitTimedOut, naming the order and whether it was seen stopped. Before, the wait retried for a week per attempt,
 * without end.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { progressQuery } from '../../src/contract/index.js';
import { RunOrderInput } from '../../src/contract/workflows.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { WAITED_ORDER } from '../helpers/sim.js';

describe("an order run's wait, bounded by maxWaitMs", () => {
  const s = devServerAndSimulator({ orderDurations: { plannedMs: 50, runMs: 3_600_000 } });

  test('defaults to a week, as a job wait does, and refuses less than a second', () => {
    assert.equal(RunOrderInput.parse({ kitchen: 'k', recipe: 'r', variation: 'v' }).maxWaitMs, 7 * 24 * 3_600_000);
    const short = RunOrderInput.safeParse({ kitchen: 'k', recipe: 'r', variation: 'v', maxWaitMs: 10 });
    assert.equal(short.success, false);
    assert.deepEqual(short.error?.issues[0]?.path, ['maxWaitMs']);
  });

  test('a run longer than maxWaitMs: the order is stopped and the workflow fails JobWaitTimedOut, naming it', async () => {
    const known = new Set(s.sim.controls.orders().map((o) => o.id));
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const handle = await s.d.env.client.workflow.start('dataops.runOrder', {
        taskQueue,
        workflowId: `order-wait-${taskQueue}`,
        args: [{ ...WAITED_ORDER, maxWaitMs: 2_000 }],
      });
      const error = await handle.result().then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(error instanceof WorkflowFailedError, String(error));
      const failure = error.cause;
      assert.ok(failure instanceof ApplicationFailure, String(failure));
      assert.equal(failure.type, 'JobWaitTimedOut');
      assert.equal(failure.nonRetryable, true);
      const order = s.sim.controls.orders().find((o) => !known.has(o.id));
      assert.ok(order, 'the order was created');
      assert.equal(
        failure.message,
        `gave up waiting for the run of order ${order.id} after maxWaitMs 2000 ms; ` +
          'the order was stopped (its run is STOPPED_SERVING)',
      );
      assert.equal(order.servings[0]?.status, 'STOPPED_SERVING', 'the run does not go on unwatched');
      const progress = await handle.query(progressQuery);
      assert.equal(progress.remoteCancel?.reason, 'workflow_failed');
      assert.equal(progress.remoteCancel?.confirmed, true);
    });
  });
});
