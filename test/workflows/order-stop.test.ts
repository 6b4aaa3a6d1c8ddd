/**
 * Cancelling a workflow while its order runs stops the order, and only a stop that went through, with every run of
 * the order then seen terminal, ends the workflow "cancelled". When the service refuses the stop, or accepts it while
 * the run goes on and goes on after the workflow stopped that run itself, the workflow fails `RemoteCancelUnconfirmed`,
 * naming the order, and its progress and memo record why. A deployment may take an order's stop as "no more runs"
 * and leave the run in progress going (the simulator plays that with a stop answered 200 and not acted on): the
 * workflow then stops the run itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApplicationFailure, CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { progressQuery } from '../../src/contract/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { faultHits, startTestSimulator, WAITED_ORDER } from '../helpers/sim.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { startDevServerEnv, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

describe('cancelling a workflow while its order runs', () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  before(async () => {
    t = await startDevServerEnv();
    ({ sim } = await startTestSimulator({ orderDurations: { plannedMs: 50, runMs: 3_600_000 } }));
  });
  after(async () => {
    await sim?.close();
    await t?.env.teardown();
  });

  /** Starts runOrder, cancels it once its run is going, and returns how it ended and the order's run. */
  async function cancelWhileRunning(extra: { cancelTimeoutMs?: number } = {}) {
    const known = new Set(sim.controls.orders().map((o) => o.id));
    return withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const handle = await t.env.client.workflow.start('dataops.runOrder', {
        taskQueue,
        workflowId: `order-stop-${taskQueue}`,
        args: [{ ...WAITED_ORDER, ...extra }],
      });
      const order = await eventually('the order running', () =>
        sim.controls.orders().find((o) => !known.has(o.id) && o.servings[0]?.status === 'ACTIVE_SERVING'),
      );
      await handle.cancel();
      const error = await handle.result().then(
        () => undefined,
        (e: unknown) => e,
      );
      const memo = (await handle.describe()).memo as { remoteCancel?: unknown } | undefined;
      const run = sim.controls.orders().find((o) => o.id === order.id)?.servings[0];
      return { error, orderId: order.id, run, progress: await handle.query(progressQuery), memo };
    });
  }

  /** The RemoteCancelUnconfirmed failure a cancelled workflow ended with (asserted). */
  /** Asserts the workflow failed RemoteCancelUnconfirmed with a message matching `message`; returns that failure. */
  function unconfirmed(error: unknown, message: RegExp): ApplicationFailure {
    assert.ok(error instanceof WorkflowFailedError, String(error));
    const failure = error.cause;
    assert.ok(failure instanceof ApplicationFailure, String(failure));
    assert.equal(failure.type, 'RemoteCancelUnconfirmed');
    assert.match(failure.message, message);
    return failure;
  }

  test('the order is stopped, and the workflow ends cancelled', async () => {
    const out = await cancelWhileRunning();
    assert.ok(
      out.error instanceof WorkflowFailedError && out.error.cause instanceof CancelledFailure,
      String(out.error),
    );
    assert.equal(out.run?.status, 'STOPPED_SERVING');
    assert.deepEqual(out.progress.remoteCancel, {
      jobId: out.orderId,
      finalStatus: 'STOPPED_SERVING',
      alreadyTerminal: false,
      confirmed: true,
      reason: 'workflow_cancelled',
      error: null,
    });
    assert.deepEqual(out.memo?.remoteCancel, out.progress.remoteCancel, 'recorded in the memo too');
  });

  /** A stop under `path` answered with `status` and not acted on (200: a deployment that takes it, then lets the run go). */
  const answerStop = (path: string, status = 200, body: unknown = { status: 'success' }) =>
    sim.controls.addFault({ kind: 'respond', status, method: 'PUT', path, count: 1_000, body });
  const stopLeavesRunGoing = () => answerStop('/v2/order/stop/');

  test('a stop accepted while the run goes on: the workflow stops the run itself, then ends cancelled', async () => {
    const accepted = stopLeavesRunGoing();
    try {
      const out = await cancelWhileRunning();
      assert.ok(
        out.error instanceof WorkflowFailedError && out.error.cause instanceof CancelledFailure,
        String(out.error),
      );
      assert.ok(faultHits(sim, accepted) >= 1, 'the order stop ran');
      assert.equal(out.run?.status, 'STOPPED_SERVING', 'the run was stopped by its own stop');
      assert.ok(
        sim.controls
          .requests()
          .some((r) => r.method === 'PUT' && r.path === `/v2/serving/stop/${String(out.run?.hid)}`),
        'through /v2/serving/stop',
      );
      assert.equal(out.progress.remoteCancel?.confirmed, true);
      assert.equal(out.progress.remoteCancel?.finalStatus, 'STOPPED_SERVING');
    } finally {
      sim.controls.clearFaults();
    }
  });

  test('a run still going after both stops: RemoteCancelUnconfirmed names the order and the run status', async () => {
    stopLeavesRunGoing();
    const runStop = answerStop('/v2/serving/stop/');
    try {
      const out = await cancelWhileRunning({ cancelTimeoutMs: 2_000 });
      unconfirmed(
        out.error,
        new RegExp(
          `order ${out.orderId} was not seen stopped within cancelTimeoutMs \\(its run is ACTIVE_SERVING\\); its run may still be going`,
        ),
      );
      assert.equal(out.run?.status, 'ACTIVE_SERVING', 'the run is indeed still going');
      assert.ok(faultHits(sim, runStop) >= 1, 'the run stop was tried');
      assert.deepEqual(out.progress.remoteCancel, {
        jobId: out.orderId,
        finalStatus: 'ACTIVE_SERVING',
        alreadyTerminal: false,
        confirmed: false,
        reason: 'workflow_cancelled',
        error: null,
      });
      assert.deepEqual(out.memo?.remoteCancel, out.progress.remoteCancel, 'recorded in the memo too');
    } finally {
      sim.controls.clearFaults();
    }
  });

  test('a stop accepted while the runs cannot be read: unconfirmed, with the status unknown, not "no run"', async () => {
    stopLeavesRunGoing();
    const unreadable = sim.controls.addFault({
      kind: 'status',
      status: 503,
      method: 'GET',
      path: '/v2/order/servings/',
      count: 1_000_000,
    });
    try {
      const out = await cancelWhileRunning({ cancelTimeoutMs: 2_000 });
      unconfirmed(
        out.error,
        new RegExp(
          `order ${out.orderId} was not seen stopped within cancelTimeoutMs \\(its runs could not be read; .+\\)`,
        ),
      );
      assert.equal(out.run?.status, 'ACTIVE_SERVING', 'the run is indeed still going');
      assert.ok(faultHits(sim, unreadable) >= 1, 'the runs were read');
      assert.equal(out.progress.remoteCancel?.finalStatus, 'unknown');
      assert.equal(out.progress.remoteCancel?.confirmed, false);
      assert.match(out.progress.remoteCancel?.error ?? '', /503/);
    } finally {
      sim.controls.clearFaults();
    }
  });

  test('a stop the service refuses is not reported as a cancel: RemoteCancelUnconfirmed names the order', async () => {
    const refused = answerStop('/v2/order/stop/', 403, { message: 'not allowed to stop orders' });
    try {
      const out = await cancelWhileRunning();
      const failure = unconfirmed(
        out.error,
        new RegExp(`order ${out.orderId} could not be stopped .*its run may still be going`),
      );
      assert.equal(failure.nonRetryable, true);
      assert.equal(out.run?.status, 'ACTIVE_SERVING', 'the run is indeed still going');
      assert.equal(out.progress.remoteCancel?.jobId, out.orderId);
      assert.equal(out.progress.remoteCancel?.confirmed, false);
      assert.equal(out.progress.remoteCancel?.reason, 'workflow_cancelled');
      assert.match(out.progress.remoteCancel?.error ?? '', /not allowed to stop orders/);
      assert.deepEqual(out.memo?.remoteCancel, out.progress.remoteCancel, 'recorded in the memo too');
      assert.ok(faultHits(sim, refused) >= 1, 'the stop was refused');
    } finally {
      sim.controls.clearFaults();
    }
  });
});

describe('cancelling a workflow before its order run is listed', () => {
  const s = devServerAndSimulator({
    orderDurations: { plannedMs: 50, runMs: 3_600_000 },
    // A deployment that lists a new run a few seconds after it plans it.
    variants: { orderRunsListedAfterMs: 3_000 },
  });

  test('no run listed is not "stopped": the run is read once listed, stopped, and only then the workflow ends cancelled', async () => {
    // The order's stop is taken and not acted on (no more runs; the one in progress goes on).
    const accepted = s.sim.controls.addFault({
      kind: 'respond',
      status: 200,
      method: 'PUT',
      path: '/v2/order/stop/',
      count: 1_000,
      body: { status: 'success' },
    });
    const known = new Set(s.sim.controls.orders().map((o) => o.id));
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const handle = await s.d.env.client.workflow.start('dataops.runOrder', {
        taskQueue,
        workflowId: `order-unlisted-${taskQueue}`,
        args: [WAITED_ORDER],
      });
      const order = await eventually('the order created', () => s.sim.controls.orders().find((o) => !known.has(o.id)));
      await handle.cancel();
      const error = await handle.result().then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(error instanceof WorkflowFailedError && error.cause instanceof CancelledFailure, String(error));
      assert.ok(faultHits(s.sim, accepted) >= 1, 'the order stop ran');
      const run = s.sim.controls.orders().find((o) => o.id === order.id)?.servings[0];
      assert.equal(run?.status, 'STOPPED_SERVING', 'the run, listed after the stop, was stopped');
      const progress = await handle.query(progressQuery);
      assert.equal(progress.remoteCancel?.confirmed, true);
      assert.equal(progress.remoteCancel?.finalStatus, 'STOPPED_SERVING');
    });
  });
});
