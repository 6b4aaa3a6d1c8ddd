/**
 * Stopping a workflow's order, and saying how it went. The stop activity stops the order and reads its runs back
 * (src/exactly-once/order-stop.ts); every outcome is recorded in `remoteCancel` (progress and memo, `jobId` = the order
 * id), and one that is not confirmed gives the failure a cancelled workflow ends with instead of "cancelled".
 */
import { ApplicationFailure, CancellationScope, log } from '@temporalio/workflow';
import { callsWithin } from '../../contract/activity-options.js';
import type { OrderStopOutcome } from '../../contract/index.js';
import { isTerminalOrderRunStatus } from '../../vocabulary.js';
import { recordRemoteCancel, rootMessage, type CancelReason, type RemoteCancel } from './remote-cancel.js';
import type { Tracker } from '../../workflows/shared.js';
import { ourActivities } from '../../workflows/ours.js';

export interface OrderToStop {
  profile: string;
  kitchen: string;
  orderId: string;
  cancelTimeoutMs: number;
  pollIntervalMs: number;
  outageToleranceMs: number;
}

/**
 * Records how the stop went. Returns, when it was not confirmed, the RemoteCancelUnconfirmed failure that says `why`:
 * "cancelled" would claim what did not happen.
 */
function recordStop(
  t: Tracker,
  orderId: string,
  reason: CancelReason,
  seen: Pick<RemoteCancel, 'finalStatus' | 'confirmed' | 'error'>,
  why: string,
): ApplicationFailure | null {
  const outcome: RemoteCancel = { jobId: orderId, alreadyTerminal: false, reason, ...seen };
  recordRemoteCancel(t, outcome);
  if (outcome.confirmed) return null;
  log.warn(`order ${orderId} ${why}`, { ...outcome });
  return ApplicationFailure.create({
    type: 'RemoteCancelUnconfirmed',
    nonRetryable: true,
    message: `the workflow was cancelled, but order ${orderId} ${why}; its run may still be going`,
    details: [{ remoteCancel: outcome }],
  });
}

/**
 * A stop the service accepted, as its runs were read back: confirmed when at least one was listed and each was seen
 * terminal. `finalStatus` is the status of a run still going, else of the first run; `unknown` when no run could be
 * read, or none was listed (a run may be listed a moment after it is planned: that is no confirmed stop).
 */
function stopSeen(t: Tracker, orderId: string, reason: CancelReason, res: OrderStopOutcome): ApplicationFailure | null {
  const going = res.runs.find((r) => !isTerminalOrderRunStatus(r.status)) ?? res.runs[0];
  const unread = !going && !res.confirmed;
  const finalStatus = going?.status ?? 'unknown';
  const seen = unread ? 'its runs could not be read' : `its run is ${finalStatus}`;
  const why = `was not seen stopped within cancelTimeoutMs (${seen}${res.error ? `; ${res.error}` : ''})`;
  return recordStop(t, orderId, reason, { finalStatus, confirmed: res.confirmed, error: res.error }, why);
}

/**
 * Stops the order, in a non-cancellable scope, and records how that went. Returns the failure a cancelled workflow
 * ends with when the stop is not confirmed; null when it is.
 */
export function stopOrder(t: Tracker, o: OrderToStop, reason: CancelReason): Promise<ApplicationFailure | null> {
  // The stop reads the order's runs back for up to cancelTimeoutMs: its attempt is given that long, and a minute more.
  const { stopOrder: stop } = ourActivities({
    ...callsWithin(o.outageToleranceMs),
    startToCloseTimeout: Math.max(5 * 60_000, o.cancelTimeoutMs + 60_000),
  });
  return CancellationScope.nonCancellable(async () => {
    t.stage('stopping order');
    try {
      const res = await stop({
        profile: o.profile,
        orderId: o.orderId,
        kitchen: o.kitchen,
        confirmWithinMs: o.cancelTimeoutMs,
        pollIntervalMs: Math.min(o.pollIntervalMs, 2_000),
      });
      return stopSeen(t, o.orderId, reason, res);
    } catch (err) {
      // The stop call retried through an outage and still failed: its run may be going. Never report that as clean.
      const error = rootMessage(err);
      const seen = { finalStatus: 'unknown', confirmed: false, error };
      return recordStop(t, o.orderId, reason, seen, `could not be stopped (${error})`);
    }
  });
}
