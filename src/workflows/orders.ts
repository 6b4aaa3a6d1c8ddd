/** The order step of runOrder and the pipeline: create, optionally wait for the run, stop on cancel. */
import { ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import { DEFAULT_CANCEL_TIMEOUT_MS, DEFAULT_MAX_WAIT_MS, heartbeatWaiting } from '../contract/activity-options.js';
import type { RunOrderResult } from '../contract/index.js';
import type { LineageFacts } from '../contract/lineage.js';
import type { RunOrderInput } from '../contract/workflows.js';
import { askSubmitter, stopOrder, type CancelReason } from '../exactly-once/workflow/index.js';
import { ranOutOfMaxWait, type Tracker } from './shared.js';
import { ourActivities } from './ours.js';

type OrderSpec = Pick<RunOrderInput, 'kitchen' | 'recipe' | 'variation'> & {
  parameters: Record<string, unknown>;
  overrides: {
    orderSchedule?: Record<string, unknown>;
    infrastructure?: Record<string, unknown>;
    sourceDataDate?: Record<string, unknown>;
    alertDestination?: Record<string, unknown>;
  };
  wait: boolean;
  /** Absent from the inputs of workflows started before orders took one: they waited a week, as the default. */
  maxWaitMs?: number | undefined;
};

/** Runs an order (and optionally waits for its run). Cancelling stops the order. Shared by runOrder and the pipeline. */
export async function orderStep(
  t: Tracker,
  // cancelTimeoutMs: absent from the inputs runOrder recorded before it took one.
  opts: { profile: string; pollIntervalMs: number; cancelTimeoutMs?: number | undefined; outageToleranceMs: number },
  spec: OrderSpec,
): Promise<RunOrderResult> {
  const { profile, pollIntervalMs } = opts;
  const o = spec.overrides;
  const overridesApplied = {
    order_schedule: o.orderSchedule ?? {},
    infrastructure: o.infrastructure ?? {},
    source_data_date: o.sourceDataDate ?? {},
    alert_destination: o.alertDestination ?? {},
    other: spec.parameters,
  };
  const parameters = {
    ...spec.parameters,
    ...o.orderSchedule,
    ...o.infrastructure,
    ...o.sourceDataDate,
    ...o.alertDestination,
  };
  t.stage('running order');
  // Through the submitter of its kitchen, recipe and variation: one creation in flight for each.
  const created = await askSubmitter(
    t,
    'runOrder',
    { profile, kitchen: spec.kitchen, recipe: spec.recipe, variation: spec.variation, parameters },
    { outageToleranceMs: opts.outageToleranceMs },
  );
  t.progress.orderId = created.orderId;
  t.touch();
  const stop = (reason: CancelReason) =>
    stopOrder(
      t,
      {
        ...opts,
        kitchen: spec.kitchen,
        orderId: created.orderId,
        cancelTimeoutMs: opts.cancelTimeoutMs ?? DEFAULT_CANCEL_TIMEOUT_MS,
      },
      reason,
    );
  // A cancel that arrived while the order was being created: stop it, and go no further (nothing else is submitted).
  if (CancellationScope.current().consideredCancelled) {
    const failed = await stop('workflow_cancelled');
    if (failed) throw failed;
    await CancellationScope.current().cancelRequested;
  }
  let orderRun = null;
  if (spec.wait) {
    t.stage('waiting for order run');
    const maxWaitMs = spec.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    try {
      orderRun = await ourActivities({
        ...heartbeatWaiting(maxWaitMs),
        taskQueue: t.waitsTaskQueue,
      }).waitForOrderRun({
        profile,
        kitchen: spec.kitchen,
        orderId: created.orderId,
        pollIntervalMs,
      });
    } catch (err) {
      // Cancelled, or the wait failed for good: either way nobody will watch the run any more, so stop it.
      const cancelled = isCancellation(err);
      const failed = await stop(cancelled ? 'workflow_cancelled' : 'workflow_failed');
      if (failed && cancelled) throw failed;
      throw orderWaitTimedOut(t, created.orderId, maxWaitMs, err) ?? err;
    }
  }
  // Its page outlives the run in the memo, beside the jobs' (one write, only where the deployment has one).
  if (orderRun?.url) t.keepPage(orderRun.orderRunId, orderRun.url);
  return {
    orderId: created.orderId,
    status: created.status,
    overridesApplied,
    variableOverrides: created.variableOverrides,
    reconciled: created.reconciled,
    orderRun,
  };
}

/** What an order's lineage says of it: the order, and the run its wait saw end, how, and that run's page. */
export function orderFacts(result: Pick<RunOrderResult, 'orderId' | 'orderRun'>): LineageFacts {
  const run = result.orderRun;
  return {
    orderId: result.orderId,
    ...(run
      ? { orderRun: { orderRunId: run.orderRunId, status: run.status, ...(run.url ? { url: run.url } : {}) } }
      : {}),
  };
}

/**
 * The order run's wait ran out of `maxWaitMs` (its activity timed out): JobWaitTimedOut, as for a job, saying whether
 * the order was seen stopped. Other failures pass through as they are.
 */
function orderWaitTimedOut(t: Tracker, orderId: string, maxWaitMs: number, err: unknown) {
  if (!ranOutOfMaxWait(err)) return undefined;
  const stop = t.progress.remoteCancel;
  const fate = stop?.confirmed
    ? `the order was stopped (its run is ${stop.finalStatus})`
    : `the order could not be confirmed stopped (its run is ${stop?.finalStatus ?? 'unknown'}); it may still be going`;
  return ApplicationFailure.create({
    type: 'JobWaitTimedOut',
    nonRetryable: true,
    message: `gave up waiting for the run of order ${orderId} after maxWaitMs ${maxWaitMs} ms; ${fate}`,
    cause: err,
    details: [{ orderId, maxWaitMs, remoteCancel: stop ?? null }],
  });
}
