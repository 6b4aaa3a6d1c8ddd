/**
 * Stopping an order, and seeing that it stopped. An accepted stop says nothing about when the order's run ends, and
 * a deployment may take `PUT /v2/order/stop` as "no more runs" while the run in progress goes on (DKUtils has a
 * separate call, `PUT /v2/serving/stop`, to stop one run). So, given the kitchen, the stop reads the order's runs
 * back: it stops each run still going by itself, and reads again until at least one run is listed and every run is
 * terminal, or the confirmation budget is spent (the workflow's `cancelTimeoutMs`, never past the attempt's own
 * deadline). A stop the service refuses fails as before; a read or run stop that fails while confirming is tried again
 * within the budget, and named in the outcome when the budget ends first.
 */
import { Context, log } from '@temporalio/activity';
import { z } from 'zod';
import { isTerminalOrderRunStatus, type ServiceClient } from '../api/index.js';
import { DEFAULT_CANCEL_TIMEOUT_MS } from '../contract/activity-options.js';
import type { OrderStopOutcome } from '../contract/types.js';
import type { ActivityContext } from '../activities/context.js';
import { attemptDeadline } from '../activities/deadline.js';
import { parseInput, translated } from '../activities/errors.js';
import { rest } from '../activities/heartbeats.js';

export const StopOrderInput = z.object({
  profile: z.string().min(1).default('default'),
  orderId: z.string().min(1),
  /** Where the order runs: its runs are read back there. */
  kitchen: z.string().min(1),
  /** How long to read the runs back until each is terminal. */
  confirmWithinMs: z.number().int().min(0).default(DEFAULT_CANCEL_TIMEOUT_MS),
  pollIntervalMs: z.number().int().min(10).default(1_000),
});
export type StopOrderInput = z.input<typeof StopOrderInput>;

type Runs = OrderStopOutcome['runs'];

/** Reads the order's runs until each is terminal, stopping those still going; bounded by the budget. */
async function confirmStopped(
  client: ServiceClient,
  input: z.infer<typeof StopOrderInput>,
  context: Context,
): Promise<OrderStopOutcome> {
  const signal = context.cancellationSignal;
  const deadline = Math.min(Date.now() + input.confirmWithinMs, attemptDeadline(context));
  const askedToStop = new Set<string>();
  let runs: Runs = [];
  let error: string | null;
  for (;;) {
    try {
      const listed = await client.orders.runs(input.kitchen, input.orderId, { signal });
      runs = listed.map((r) => ({ orderRunId: r.hid, status: r.status }));
      error = null;
      // No run listed is not "every run stopped": a deployment may list a new run a moment after it plans it.
      if (runs.length === 0) error = 'no run of the order is listed yet';
      else if (runs.every((r) => isTerminalOrderRunStatus(r.status))) return { confirmed: true, runs, error };
      for (const run of runs) {
        if (isTerminalOrderRunStatus(run.status) || askedToStop.has(run.orderRunId)) continue;
        log.warn('the order was stopped, but its run goes on; stopping the run', { orderId: input.orderId, ...run });
        await client.orders.stopRun(run.orderRunId, { signal });
        askedToStop.add(run.orderRunId);
      }
    } catch (err) {
      if (signal.aborted) throw err;
      error = err instanceof Error ? err.message : String(err);
      log.warn('the order stop is not confirmed yet', { orderId: input.orderId, error });
    }
    const wait = Math.min(input.pollIntervalMs, deadline - Date.now());
    if (wait <= 0) return { confirmed: false, runs, error };
    await rest(wait);
  }
}

export function orderStopActivities(ctx: ActivityContext) {
  return {
    /**
     * Stops an order (all its runs), and with the kitchen given reads its runs back until each is terminal: what a
     * cancelled order workflow does to its remote work.
     */
    stopOrder: async (raw: StopOrderInput): Promise<OrderStopOutcome> => {
      const input = parseInput(StopOrderInput, raw, 'stopOrder');
      return translated(async () => {
        const context = Context.current();
        const { client } = ctx.profile(input.profile);
        await client.orders.stop(input.orderId, { signal: context.cancellationSignal });
        log.info('order stop accepted', { orderId: input.orderId });
        return confirmStopped(client, input, context);
      });
    },
  };
}
