/** Orders run in kitchens (the /v2 API), and their order runs ("servings"), moved along by the simulator clock. */
import { randomUUID } from 'node:crypto';
import type { SimContext, SimUser } from './context.js';
import { forbidden, notFound, orderFailure } from './errors.js';
import type { OverrideKind } from './seed.js';
import type { OrderRecord, ServingRecord } from './state.js';

export const SERVING_TERMINAL = new Set(['COMPLETED_SERVING', 'STOPPED_SERVING', 'SERVING_ERROR', 'SERVING_RERAN']);

export function createOrder(
  ctx: SimContext,
  user: SimUser,
  kitchenName: string,
  recipeName: string,
  variationName: string,
  parameters: Record<string, unknown>,
  schedule: unknown,
  requestId: string | null = null,
): OrderRecord {
  const kitchen = ctx.kitchens.get(kitchenName);
  if (!kitchen) throw orderFailure(`Kitchen '${kitchenName}' does not exist`);
  if (!user.kitchens.includes(kitchenName)) throw forbidden(`user has no access to kitchen '${kitchenName}'`);
  if (user.role === 'viewer') throw forbidden(`role 'viewer' may not create orders`);
  const recipe = kitchen.recipes.find((r) => r.name === recipeName);
  if (!recipe) throw orderFailure(`Recipe '${recipeName}' does not exist in kitchen '${kitchenName}'`);
  const variation = recipe.variations.find((v) => v.name === variationName);
  if (!variation) throw orderFailure(`Variation '${variationName}' does not exist in recipe '${recipeName}'`);
  const unknown = Object.keys(parameters).filter((k) => !(k in kitchen.variables));
  if (unknown.length)
    throw orderFailure(`Unknown variable(s) for kitchen '${kitchenName}': ${unknown.map((k) => `'${k}'`).join(', ')}`);

  const overrides: Partial<Record<OverrideKind, Record<string, unknown>>> = {};
  for (const [name, value] of Object.entries(parameters)) {
    const kind = kitchen.variables[name];
    if (kind) (overrides[kind] ??= {})[name] = value;
  }
  const now = ctx.clock.now();
  const order: OrderRecord = {
    id: randomUUID(),
    kitchen: kitchenName,
    recipe: recipeName,
    variation: variationName,
    parameters,
    overrides_by_kind: overrides,
    schedule: schedule ?? 'now',
    created_at: now,
    created_by: user.username,
    request_id: requestId,
    serving_ids: [],
  };
  const serving: ServingRecord = {
    hid: randomUUID(),
    order_id: order.id,
    kitchen: kitchenName,
    status: 'PLANNED_SERVING',
    created_at: now,
    phase_started_at: now,
    started_at: null,
    completed_at: null,
    fails: variation.fails,
    durations: { ...ctx.state.order_durations },
  };
  order.serving_ids.push(serving.hid);
  ctx.state.orders[order.id] = order;
  ctx.state.servings[serving.hid] = serving;
  return order;
}

export function advanceServings(ctx: SimContext): void {
  const now = ctx.clock.now();
  for (const s of Object.values(ctx.state.servings)) {
    if (s.status === 'PLANNED_SERVING' && now >= s.phase_started_at + s.durations.plannedMs) {
      s.phase_started_at += s.durations.plannedMs;
      s.started_at = s.phase_started_at;
      s.status = 'ACTIVE_SERVING';
    }
    if (s.status === 'ACTIVE_SERVING' && now >= s.phase_started_at + s.durations.runMs) {
      s.completed_at = s.phase_started_at + s.durations.runMs;
      s.status = s.fails ? 'SERVING_ERROR' : 'COMPLETED_SERVING';
    }
  }
}

export function findOrder(ctx: SimContext, user: SimUser, kitchen: string, orderId: string): OrderRecord {
  const order = ctx.state.orders[orderId];
  if (!order || order.kitchen !== kitchen) throw notFound(`order ${orderId} in kitchen '${kitchen}'`);
  if (!user.kitchens.includes(kitchen)) throw forbidden(`user has no access to kitchen '${kitchen}'`);
  return order;
}

export function stopServing(ctx: SimContext, serving: ServingRecord): void {
  if (SERVING_TERMINAL.has(serving.status)) return;
  serving.status = 'STOPPED_SERVING';
  serving.completed_at = ctx.clock.now();
}

export function servingView(ctx: SimContext, s: ServingRecord): Record<string, unknown> {
  const order = ctx.state.orders[s.order_id];
  return {
    hid: s.hid,
    order_id: s.order_id,
    kitchen: s.kitchen,
    recipe: order?.recipe,
    variation: order?.variation,
    status: s.status,
    created_at: ctx.clock.iso(s.created_at),
    started_at: s.started_at === null ? null : ctx.clock.iso(s.started_at),
    completed_at: s.completed_at === null ? null : ctx.clock.iso(s.completed_at),
    variable_overrides: order?.parameters ?? {},
    overrides_by_kind: order?.overrides_by_kind ?? {},
  };
}
