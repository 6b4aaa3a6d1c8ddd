/** The runOrder workflow and the order step of the pipeline: create, optionally wait for the run, stop on cancel. */
import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  log,
  patched,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { DEFAULT_CANCEL_TIMEOUT_MS, WAIT, callsWithin, waitsTaskQueue } from '../contract/activity-options.js';
import type { OrderStopOutcome, RunOrderResult } from '../contract/index.js';
import { isTerminalOrderRunStatus } from '../vocabulary.js';
import type { RunOrderInput } from '../contract/workflows.js';
import { checkedInput } from './input.js';
import { Tracker } from './shared.js';
import { createOrderUnderLock } from './submission.js';
import { PATCHES } from './patches.js';
import { recordRemoteCancel, rootMessage, type CancelReason, type RemoteCancel } from './remote-cancel.js';

type OrderSpec = Pick<RunOrderInput, 'kitchen' | 'recipe' | 'variation'> & {
  parameters: Record<string, unknown>;
  overrides: {
    orderSchedule?: Record<string, unknown>;
    infrastructure?: Record<string, unknown>;
    sourceDataDate?: Record<string, unknown>;
    alertDestination?: Record<string, unknown>;
  };
  wait: boolean;
};

/** Records a stop that failed (progress, memo, log): `jobId` is the order's id. */
function stopFailed(t: Tracker, orderId: string, reason: CancelReason, err: unknown): RemoteCancel {
  const outcome: RemoteCancel = {
    jobId: orderId,
    finalStatus: 'unknown',
    alreadyTerminal: false,
    confirmed: false,
    reason,
    error: rootMessage(err),
  };
  recordRemoteCancel(t, outcome);
  log.warn('the order could not be stopped', { ...outcome });
  return outcome;
}

/**
 * Records a stop the service accepted, as its runs were read back: confirmed when each was seen terminal. Returns the
 * outcome when it was not confirmed. `finalStatus` is the status of a run still going, else of the first run, else
 * `no_run` (the order had none yet, and a stopped order starts none).
 */
function stopSeen(t: Tracker, orderId: string, reason: CancelReason, res: OrderStopOutcome): RemoteCancel | null {
  const going = res.runs.find((r) => !isTerminalOrderRunStatus(r.status)) ?? res.runs[0];
  const outcome: RemoteCancel = {
    jobId: orderId,
    finalStatus: going?.status ?? 'no_run',
    alreadyTerminal: false,
    confirmed: res.confirmed,
    reason,
    error: res.error,
  };
  recordRemoteCancel(t, outcome);
  if (res.confirmed) return null;
  log.warn('the order stop was accepted, but its run was not seen stopped', { ...outcome, runs: res.runs });
  return outcome;
}

/** The failure of a cancelled workflow whose order could not be stopped: "cancelled" would claim what did not happen. */
function unstoppedOrder(outcome: RemoteCancel): ApplicationFailure {
  const why =
    outcome.finalStatus === 'unknown'
      ? `could not be stopped (${outcome.error ?? 'no answer'})`
      : `was not seen stopped within cancelTimeoutMs (its run is ${outcome.finalStatus}${outcome.error ? `; ${outcome.error}` : ''})`;
  return ApplicationFailure.create({
    type: 'RemoteCancelUnconfirmed',
    nonRetryable: true,
    message: `the workflow was cancelled, but order ${outcome.jobId} ${why}; its run may still be going`,
    details: [{ remoteCancel: outcome }],
  });
}

/** Runs an order (and optionally waits for its run). Cancelling stops the order. Shared by runOrder and the pipeline. */
export async function orderStep(
  t: Tracker,
  // cancelTimeoutMs: absent from the inputs runOrder recorded before it took one.
  opts: { profile: string; pollIntervalMs: number; cancelTimeoutMs?: number | undefined; outageToleranceMs: number },
  spec: OrderSpec,
): Promise<RunOrderResult> {
  const { profile, pollIntervalMs } = opts;
  const cancelTimeoutMs = opts.cancelTimeoutMs ?? DEFAULT_CANCEL_TIMEOUT_MS;
  // The stop reads the order's runs back for up to cancelTimeoutMs: its attempt is given that long, and a minute more.
  const { stopOrder } = proxyActivities<Activities>({
    ...callsWithin(opts.outageToleranceMs),
    startToCloseTimeout: Math.max(5 * 60_000, cancelTimeoutMs + 60_000),
  });
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
  const created = await createOrderUnderLock(t, {
    profile,
    kitchen: spec.kitchen,
    recipe: spec.recipe,
    variation: spec.variation,
    parameters,
    outageToleranceMs: opts.outageToleranceMs,
  });
  t.progress.orderId = created.orderId;
  t.touch();
  const stop = (reason: CancelReason) =>
    CancellationScope.nonCancellable(async () => {
      t.stage('stopping order');
      try {
        const res = await stopOrder({
          profile,
          orderId: created.orderId,
          kitchen: spec.kitchen,
          confirmWithinMs: cancelTimeoutMs,
          pollIntervalMs: Math.min(pollIntervalMs, 2_000),
        });
        // A stop scheduled before stops were read back answers nothing: it ends as it did.
        return res ? stopSeen(t, created.orderId, reason, res) : null;
      } catch (err) {
        // The stop call retried through an outage and still failed: its run may be going. Never report that as clean.
        // Workflows that failed to stop an order before this check ended as they were (only then is a marker added).
        if (patched(PATCHES.orderStopUnconfirmed)) return stopFailed(t, created.orderId, reason, err);
        log.warn('the order could not be stopped', { orderId: created.orderId, error: rootMessage(err) });
        return null;
      }
    });
  // A cancel that arrived while the order was being created: stop it, and go no further (nothing else is submitted).
  if (CancellationScope.current().consideredCancelled) {
    const failed = await stop('workflow_cancelled');
    if (failed) throw unstoppedOrder(failed);
    await CancellationScope.current().cancelRequested;
  }
  let orderRun = null;
  if (spec.wait) {
    t.stage('waiting for order run');
    try {
      orderRun = await proxyActivities<Activities>({
        ...WAIT,
        taskQueue: waitsTaskQueue(workflowInfo().taskQueue),
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
      if (failed && cancelled) throw unstoppedOrder(failed);
      throw err;
    }
  }
  return {
    orderId: created.orderId,
    status: created.status,
    overridesApplied,
    variableOverrides: created.variableOverrides,
    reconciled: created.reconciled,
    orderRun,
  };
}

/** Runs an order in a kitchen, with runtime overrides; optionally waits for the order run to finish. */
export async function runOrder(raw: RunOrderInput): Promise<RunOrderResult> {
  const t = new Tracker('runOrder');
  return t.run(async () => {
    const input = await checkedInput('runOrder', raw, t.search);
    t.search.set({ stage: 'order' });
    return orderStep(t, input, input);
  });
}
