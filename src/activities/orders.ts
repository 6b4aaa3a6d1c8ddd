/** Order activities: run an order (once: a lost answer is reconciled through the order listing) and wait for its run. */
import { Context, activityInfo, log } from '@temporalio/activity';
import { z } from 'zod';
import { ServiceError, isTerminalOrderRunStatus } from '../api/index.js';
import type { OrderResult, OrderRunOutcome } from '../contract/types.js';
import type { ActivityContext } from './context.js';
import { beatingWhile, note, rest } from './heartbeats.js';
import {
  deploymentsOf,
  lookUntilSettled,
  orderSubmitterId,
  outageToleranceOf,
  pause,
  recordingRefusal,
  requester,
  requestIdOf,
  sendSignal,
  submitterFor,
  throughSubmitter,
  undoneIfGone,
  unknownWords,
  writeOnce,
  type Outstanding,
  type Phase,
  type Prior,
  type SendFor,
  type Write,
} from '../exactly-once/index.js';
import { untilNextPoll } from './wait-progress.js';
import { SentFor } from './job-inputs.js';
import { orderRunPage } from './order-pages.js';
import { OrderOutcomeUnknown, parseInput, translated } from './errors.js';

export const RunOrderInput = z.object({
  profile: z.string().min(1).default('default'),
  kitchen: z.string().min(1),
  recipe: z.string().min(1),
  variation: z.string().min(1),
  parameters: z.record(z.string(), z.unknown()).default({}),
  /** The task queue its send runs on (its workflow's), where the submitter starts if none runs. @default this activity's */
  submitterQueue: z.string().min(1).optional(),
  requester: SentFor.requester,
});
export type RunOrderInput = z.input<typeof RunOrderInput>;

export const WaitOrderInput = z.object({
  profile: z.string().min(1).default('default'),
  kitchen: z.string().min(1),
  orderId: z.string().min(1),
  pollIntervalMs: z.number().int().min(10).default(5_000),
});
export type WaitOrderInput = z.input<typeof WaitOrderInput>;

const WaitProgress = z.object({
  orderRunId: z.string().nullable(),
  status: z.string().nullable(),
  polls: z.number().int(),
});

/** The mark of an order's send: the orders listed before it (null: no listing). */
type Listed = string[] | null;

/** Creating an order once, and undoing one its workflow will never hear of. */
function orderWrites(ctx: ActivityContext) {
  /**
   * Creates the order once: an attempt after one that may have sent (`prior`) looks for its order first. `record`:
   * where its phase goes (its heartbeat details; a submitter's batch adds its own record).
   */
  async function createOnce(
    input: z.output<typeof RunOrderInput>,
    signal: AbortSignal,
    outstanding: Outstanding,
    prior: Prior<Listed>,
    record: (phase: Phase<Listed>) => void | Promise<void>,
  ): Promise<OrderResult> {
    const { client, soleWriter } = ctx.profile(input.profile);
    // A new order is taken for ours by its recipe and variation alone only where nothing else makes them meanwhile
    // (declared by the profile).
    const byTarget = soleWriter === true;
    const where = `${input.kitchen}/${input.recipe}/${input.variation}`;
    const listed = async () =>
      (
        await client.orders.list(
          input.kitchen,
          { recipe: input.recipe, variation: input.variation, timePeriodHours: 24 },
          { signal },
        )
      ).orderIds;
    /**
     * Looks for the order a lost answer created (src/exactly-once/lookup.ts): the listing tells ids alone, so a new one
     * is ours only where nothing else makes orders of this recipe and variation (`byTarget`), and only once a held
     * request of ours could no longer commit beside another's.
     */
    const settle = async (sentAt: number, before: string[]): Promise<OrderResult | undefined> => {
      const listing = {
        page: async () => ({ items: (await listed()).map((id) => ({ id })), last: true }),
        whose: async () => 'target' as const,
      };
      const window = { sentAt, settleMs: ctx.submitSettleMs, cadence: { firstMs: 2_000, everyMs: 2_000 } };
      const rules = { soleWriter: byTarget, earlier: new Set<string>() };
      const seen = await lookUntilSettled(listing, { at: null, ids: before }, rules, window, (ms) =>
        beatingWhile(pause(ms, signal)),
      );
      if ('none' in seen) return undefined;
      if ('unknown' in seen)
        throw new OrderOutcomeUnknown(
          `an order ${where} may have been created, and ${unknownWords(seen.unknown, 'order', seen.candidates)}; check the kitchen before running it again (a profile whose account nothing else writes with sets SOLE_WRITER)`,
        );
      log.warn('order answer lost; found the order it created', { orderId: seen.found.id, kitchen: input.kitchen });
      return { orderId: seen.found.id, status: null, variableOverrides: input.parameters, reconciled: true };
    };

    const unknown = (why: string) =>
      new OrderOutcomeUnknown(
        `an order ${where} may have been created${why}; check the kitchen before running it again`,
      );
    return writeOnce(
      {
        prior,
        // A deployment without the listing (or one this client cannot read) still runs orders; only a lost answer
        // then cannot be reconciled.
        mark: () =>
          listed().catch((err: unknown) => {
            if (!(err instanceof ServiceError) || err.retryable) throw err;
            log.warn('no usable order listing; a lost answer will not be reconciled', { error: err.message });
            return null;
          }),
        send: async (leaveBy) => {
          const created = await client.orders.create(
            { kitchen: input.kitchen, recipe: input.recipe, variation: input.variation, parameters: input.parameters },
            { signal, requestId: requestIdOf(input.requester ?? requester()), leaveBy },
          );
          log.info('order created', { orderId: created.order_id, kitchen: input.kitchen, recipe: input.recipe });
          return {
            orderId: created.order_id,
            status: created.status ?? null,
            variableOverrides: created.variable_overrides,
            reconciled: false,
          };
        },
        find: async (sending, cause) => {
          const why = cause instanceof Error ? ` (${cause.message})` : '';
          if (!sending.mark) throw unknown(`${why}, and this deployment has no order listing to find it`);
          return settle(sending.sentAt, sending.mark);
        },
        record,
      },
      outstanding,
    );
  }

  /**
   * Stops an order its workflow will never hear of (see requester-gone.ts); a failure is thrown, for the batch's retry
   * to find the order and stop it again.
   */
  async function undo(profile: string, orderId: string, signal: AbortSignal): Promise<void> {
    try {
      await ctx.profile(profile).client.orders.stop(orderId, { signal });
    } catch (err) {
      log.warn('could not stop an order nobody watches yet', { orderId, error: (err as Error).message });
      throw err;
    }
  }

  return { createOnce, undo };
}

/**
 * An order's write (through-submitter.ts): sent by its recipe and variation's submitter for its requester
 * (send-in-turn.ts), and that submitter.
 */
export function orderWrite(ctx: ActivityContext): Write {
  const { createOnce, undo } = orderWrites(ctx);
  const send: SendFor = async (raw, turn) => {
    const input = parseInput(RunOrderInput, raw, 'runOrder');
    const prior = turn.prior as Prior<Listed>;
    const outstanding = { value: prior.mayHaveSent };
    return translated(() =>
      recordingRefusal(outstanding, turn.record, async () => {
        const signal = sendSignal();
        const created = await createOnce(input, signal, outstanding, prior, turn.record);
        return undoneIfGone(created, (r) => undo(input.profile, r.orderId, signal), input.requester);
      }),
    );
  };
  return { send, submitterOf: (raw) => orderSubmitterOf(ctx)(parseInput(RunOrderInput, raw, 'runOrder')) };
}

/** The submitter of an order's deployment, kitchen, recipe and variation, on its workflow's task queue. */
const orderSubmitterOf = (ctx: ActivityContext) => (o: z.output<typeof RunOrderInput>) => {
  const { baseUrl } = ctx.profile(o.profile).client;
  return submitterFor(o, (taskQueue) => orderSubmitterId(taskQueue, deploymentsOf(baseUrl).orders, o));
};

export function orderActivities(ctx: ActivityContext) {
  const submitterOf = orderSubmitterOf(ctx);
  return {
    /**
     * Runs an order once. Only a failure that may have reached the service leads to a lookup: the order listing of
     * the recipe and variation, against the ids listed before sending (the watermark), after waiting out the time a
     * held request can still commit. The orders of a kitchen, recipe and variation go through its submitter, one at
     * a time (src/exactly-once/workflow/submitter.ts), so a new order there is ours.
     */
    runOrder: async (raw: RunOrderInput): Promise<OrderResult> => {
      const input = parseInput(RunOrderInput, raw, 'runOrder');
      // Sent by the recipe and variation's submitter, whose records decide a retry: this activity records nothing.
      const { submitterQueue: _queue, requester: _, ...order } = input;
      return translated(() =>
        throughSubmitter<OrderResult>(submitterOf(input), 'runOrder', order, outageToleranceOf()),
      );
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
          const polledAt = Date.now();
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
          note(progress); // sent with the next beat while it waits: a poll needs no heartbeat of its own
          if (progress.orderRunId && progress.status && isTerminalOrderRunStatus(progress.status)) {
            const url = await orderRunPage(client, input.kitchen, progress.orderRunId);
            return {
              orderRunId: progress.orderRunId,
              status: progress.status,
              polls: progress.polls,
              ...(url ? { url } : {}),
            };
          }
          await rest(untilNextPoll(polledAt, input.pollIntervalMs));
        }
      });
    },
  };
}
