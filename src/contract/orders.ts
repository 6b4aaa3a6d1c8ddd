/** An order's input and result: a recipe and a variation run in a kitchen, with runtime overrides. */
import { z } from 'zod';
import { DEFAULT_MAX_WAIT_MS } from './activity-options.js';
import { JobOptions, Ms, ORDER_STOP_TIMEOUT, OutageToleranceMs, rulesMeta } from './job-options.js';
import { OrderRunOutcome } from './types.js';

export const OVERRIDE_RULE = 'a variable is set once: in parameters or in one override kind, not in two';

const Vars = z.record(z.string().min(1), z.unknown());

/** An order: recipe and variation in a kitchen, with runtime overrides. */
export const OrderSpec = z.object({
  kitchen: z.string().min(1),
  recipe: z.string().min(1),
  variation: z.string().min(1),
  parameters: Vars.default({}).describe('Runtime overrides: variable name → value'),
  overrides: z
    .object({
      orderSchedule: Vars.optional().describe('Start, recurrence, frequency, expiration'),
      infrastructure: Vars.optional().describe('Storage bucket, database schema, image tag, …'),
      sourceDataDate: Vars.optional().describe('Date of the source data, for backfills'),
      alertDestination: Vars.optional().describe('Where alerts of the run go'),
    })
    .strict()
    .default({})
    .describe(
      'The four override kinds of the spec, merged into parameters. A variable may appear once: in parameters or ' +
        'in one override kind',
    ),
  wait: z.boolean().default(false).describe('Wait for the order run to finish (deployments with order-run status)'),
  maxWaitMs: Ms(1_000)
    .default(DEFAULT_MAX_WAIT_MS)
    .describe('Give up waiting for the order run after this long: stop the order, and fail JobWaitTimedOut'),
});

export function checkOverrides(v: z.infer<typeof OrderSpec>, ctx: z.RefinementCtx, base: (string | number)[] = []) {
  const seen = new Map<string, string>(Object.keys(v.parameters).map((k) => [k, 'parameters']));
  for (const [kind, vars] of Object.entries(v.overrides)) {
    for (const name of Object.keys(vars ?? {})) {
      const first = seen.get(name);
      if (first)
        ctx.addIssue({
          code: 'custom',
          path: [...base, 'overrides', kind, name],
          message: `variable '${name}' is also set in ${first}`,
        });
      seen.set(name, `overrides.${kind}`);
    }
  }
}

export const RunOrderInput = OrderSpec.extend({
  profile: JobOptions.shape.profile,
  pollIntervalMs: JobOptions.shape.pollIntervalMs,
  cancelTimeoutMs: JobOptions.shape.cancelTimeoutMs.describe(ORDER_STOP_TIMEOUT),
  outageToleranceMs: OutageToleranceMs,
})
  .strict()
  .superRefine((v, ctx) => checkOverrides(v, ctx))
  .meta(rulesMeta([OVERRIDE_RULE], 'Input of runOrder'));
export type RunOrderInput = z.input<typeof RunOrderInput>;

export const OverrideKinds = z.object({
  order_schedule: Vars,
  infrastructure: Vars,
  source_data_date: Vars,
  alert_destination: Vars,
  other: Vars,
});

export const RunOrderResult = z.object({
  orderId: z.string(),
  status: z.string().nullable(),
  overridesApplied: OverrideKinds,
  variableOverrides: Vars.describe('As the service echoed them'),
  reconciled: z.boolean().describe('The create answer was lost; the order was found in the order listing'),
  orderRun: OrderRunOutcome.nullable(),
});
export type RunOrderResult = z.infer<typeof RunOrderResult>;
