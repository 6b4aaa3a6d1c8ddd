/** Order activities: run an order (never duplicated on retry) and wait for its order run. */
import { Context, activityInfo, log } from '@temporalio/activity';
import { z } from 'zod';
import { ConnectionFailed, RateLimited, ServiceError, isTerminalOrderRunStatus } from '../api/index.js';
import type { OrderResult, OrderRunOutcome } from '../contract/types.js';
import type { ActivityContext } from './context.js';
import { beat } from './keep-alive.js';
import { OrderOutcomeUnknown, parseInput, translated } from './errors.js';

export const RunOrderInput = z.object({
  profile: z.string().min(1).default('default'),
  kitchen: z.string().min(1),
  recipe: z.string().min(1),
  variation: z.string().min(1),
  parameters: z.record(z.string(), z.unknown()).default({}),
});
export type RunOrderInput = z.input<typeof RunOrderInput>;

export const WaitOrderInput = z.object({
  profile: z.string().min(1).default('default'),
  kitchen: z.string().min(1),
  orderId: z.string().min(1),
  pollIntervalMs: z.number().int().min(10).default(5_000),
});
export type WaitOrderInput = z.input<typeof WaitOrderInput>;

/** Failures after which the order was certainly not created, so a retry cannot duplicate it. */
function notProcessed(err: unknown): boolean {
  if (err instanceof RateLimited) return true;
  if (err instanceof ConnectionFailed) return ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(err.code ?? '');
  return err instanceof ServiceError && !err.retryable; // rejected outright (4xx): not created
}

const WaitProgress = z.object({
  orderRunId: z.string().nullable(),
  status: z.string().nullable(),
  polls: z.number().int(),
});

export function orderActivities(ctx: ActivityContext) {
  return {
    /**
     * Runs an order. Orders cannot be looked up without their id, so a request whose answer was lost is not retried:
     * it fails with OrderOutcomeUnknown instead of risking a second order.
     */
    runOrder: async (raw: RunOrderInput): Promise<OrderResult> => {
      const input = parseInput(RunOrderInput, raw, 'runOrder');
      return translated(async () => {
        const { client } = ctx.profile(input.profile);
        try {
          const created = await client.orders.create(
            { kitchen: input.kitchen, recipe: input.recipe, variation: input.variation, parameters: input.parameters },
            { signal: Context.current().cancellationSignal },
          );
          log.info('order created', { orderId: created.order_id, kitchen: input.kitchen, recipe: input.recipe });
          return {
            orderId: created.order_id,
            status: created.status ?? null,
            variableOverrides: created.variable_overrides,
          };
        } catch (err) {
          if (notProcessed(err)) throw err;
          throw new OrderOutcomeUnknown(
            `the order ${input.kitchen}/${input.recipe}/${input.variation} may have been created (${(err as Error).message}); check the kitchen before running it again`,
          );
        }
      });
    },

    /** Stops an order (all its runs): what a cancelled order workflow does to its remote work. */
    stopOrder: async (raw: { profile?: string; orderId: string }): Promise<void> => {
      const input = parseInput(
        z.object({ profile: z.string().min(1).default('default'), orderId: z.string().min(1) }),
        raw,
        'stopOrder',
      );
      return translated(async () => {
        await ctx
          .profile(input.profile)
          .client.orders.stop(input.orderId, { signal: Context.current().cancellationSignal });
        log.info('order stopped', { orderId: input.orderId });
      });
    },

    /** Waits for the first order run of an order to reach a terminal status, polling with heartbeats. */
    waitForOrderRun: async (raw: WaitOrderInput): Promise<OrderRunOutcome> => {
      const input = parseInput(WaitOrderInput, raw, 'waitForOrderRun');
      return translated(async () => {
        const context = Context.current();
        const { client } = ctx.profile(input.profile);
        const prior = WaitProgress.safeParse(activityInfo().heartbeatDetails);
        const progress = prior.success ? prior.data : { orderRunId: null, status: null, polls: 0 };
        const signal = context.cancellationSignal;
        for (;;) {
          if (!progress.orderRunId) {
            const runs = await client.orders.runs(input.kitchen, input.orderId, { signal });
            progress.orderRunId = runs[0]?.hid ?? null;
          }
          if (progress.orderRunId) {
            const run = await client.orders.runStatus(input.kitchen, progress.orderRunId, { signal });
            if (run.status !== progress.status)
              log.info('order run status changed', { orderRunId: run.hid, from: progress.status, to: run.status });
            progress.status = run.status;
          }
          progress.polls++;
          beat(progress);
          if (progress.orderRunId && progress.status && isTerminalOrderRunStatus(progress.status))
            return { orderRunId: progress.orderRunId, status: progress.status, polls: progress.polls };
          await context.sleep(input.pollIntervalMs);
        }
      });
    },
  };
}
