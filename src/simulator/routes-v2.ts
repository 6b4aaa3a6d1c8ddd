/**
 * The `/v2` routes: login, token check, who the session is, and orders with their runs (create, list runs, run
 * details, stop).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { authRequest, login, requireWriter } from './auth.js';
import type { SimContext } from './context.js';
import { SimError, apiError, invalid, notFound, unprocessable } from './errors.js';
import { requestIdOf } from './http.js';
import { createOrder, findOrder, servingView, stopServing } from './orders.js';

/** The account name `GET /v2/userinfo` answers: every simulated user belongs to it. */
export const SIM_CUSTOMER = 'dataops-sim';

const OrderBody = z
  .object({ parameters: z.record(z.string(), z.unknown()).optional(), schedule: z.unknown().optional() })
  .loose()
  .optional();

const DetailsBody = z.object({ serving_hid: z.string(), summary: z.boolean().optional() });

export async function v2Routes(app: FastifyInstance, { ctx }: { ctx: SimContext }): Promise<void> {
  app.post('/v2/login', async (req, reply) => {
    const isForm = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    const body = (isForm ? req.body : {}) as Record<string, unknown> | undefined;
    const missing = ['username', 'password'].filter((k) => typeof body?.[k] !== 'string' || body[k] === '');
    if (missing.length)
      throw unprocessable(
        missing.map((k) => ({ loc: ['body', k], msg: 'Field required (form-encoded)', type: 'missing' })),
      );
    const token = login(ctx, String(body?.username), String(body?.password));
    if (!token) throw new SimError(401, { detail: 'Invalid username or password' }, { 'www-authenticate': 'Bearer' });
    req.simUser = String(body?.username);
    return reply.type('text/plain; charset=utf-8').send(token);
  });

  app.get('/v2/validatetoken', async (req) => {
    const user = authRequest(ctx, req, 'v2');
    return { token: 'valid', username: user.username };
  });

  // The account the UI's order-run pages are addressed by (deployed-variants.md: `customer_git_name`).
  app.get('/v2/userinfo', async (req) => {
    const user = authRequest(ctx, req, 'v2');
    return { username: user.username, customer_git_name: SIM_CUSTOMER };
  });

  app.put<{ Params: { kitchen: string; recipe: string; variation: string } }>(
    '/v2/order/create/:kitchen/:recipe/:variation',
    async (req) => {
      const user = authRequest(ctx, req, 'v2');
      if (req.body !== undefined && !(req.headers['content-type'] ?? '').startsWith('application/json'))
        throw apiError(415, 'unsupported_media_type', `expected application/json, got ${req.headers['content-type']}`);
      const parsed = OrderBody.safeParse(req.body);
      if (!parsed.success) throw invalid(parsed.error, 'body');
      const { kitchen, recipe, variation } = req.params;
      const order = createOrder(
        ctx,
        user,
        kitchen,
        recipe,
        variation,
        parsed.data?.parameters ?? {},
        parsed.data?.schedule,
        requestIdOf(req),
      );
      return { status: 'success', [ctx.variants.orderIdKey]: order.id, variable_overrides: order.parameters };
    },
  );

  app.get<{ Params: { kitchen: string; orderId: string }; Querystring: { count?: string } }>(
    '/v2/order/servings/:kitchen/:orderId',
    async (req) => {
      const user = authRequest(ctx, req, 'v2');
      const order = findOrder(ctx, user, req.params.kitchen, req.params.orderId);
      const count = req.query.count === undefined ? Infinity : Number(req.query.count);
      const servings = order.serving_ids
        .map((id) => ctx.state.servings[id])
        .filter((s) => s !== undefined)
        .filter((s) => ctx.clock.now() - s.created_at >= ctx.variants.orderRunsListedAfterMs)
        .slice(0, count)
        .map((s) => servingView(ctx, s));
      return { servings };
    },
  );

  // The order listing (deployed-variants.md, as DKUtils reads it): recent orders and their runs, newest first.
  app.get<{
    Params: { kitchen: string };
    Querystring: { recipe?: string; variation?: string; timePeriod?: string; servingsCount?: string };
  }>('/v2/order/status/:kitchen', async (req) => {
    const user = authRequest(ctx, req, 'v2');
    const { kitchen } = req.params;
    if (!user.kitchens.includes(kitchen))
      throw apiError(403, 'forbidden', `user has no access to kitchen '${kitchen}'`);
    const hours = Number(req.query.timePeriod ?? 24);
    const since = ctx.clock.now() - (Number.isFinite(hours) ? hours : 24) * 3_600_000;
    const count = Number(req.query.servingsCount ?? 3);
    const orders = Object.values(ctx.state.orders)
      .filter((o) => o.kitchen === kitchen && o.created_at >= since)
      .filter(
        (o) =>
          (!req.query.recipe || o.recipe === req.query.recipe) &&
          (!req.query.variation || o.variation === req.query.variation),
      )
      .sort((a, b) => b.created_at - a.created_at);
    return {
      orders: orders.map((o) => ({
        hid: o.id,
        recipe: o.recipe,
        variation: o.variation,
        created_by: o.created_by,
        created_at: ctx.clock.iso(o.created_at),
        input_settings: { parameters: o.parameters },
      })),
      servings: Object.fromEntries(
        orders.map((o) => [
          o.id,
          {
            servings: o.serving_ids
              .map((id) => ctx.state.servings[id])
              .filter((x) => x !== undefined)
              .slice(0, Number.isFinite(count) ? count : 3)
              .map((x) => servingView(ctx, x)),
          },
        ]),
      ),
    };
  });

  app.post<{ Params: { kitchen: string } }>('/v2/order/details/:kitchen', async (req) => {
    const user = authRequest(ctx, req, 'v2');
    const body = DetailsBody.safeParse(req.body);
    if (!body.success) throw invalid(body.error, 'body');
    const serving = ctx.state.servings[body.data.serving_hid];
    if (!serving || serving.kitchen !== req.params.kitchen) throw notFound(`order run ${body.data.serving_hid}`);
    findOrder(ctx, user, serving.kitchen, serving.order_id);
    return { servings: [servingView(ctx, serving)] };
  });

  app.put<{ Params: { orderId: string } }>('/v2/order/stop/:orderId', async (req) => {
    const user = authRequest(ctx, req, 'v2');
    requireWriter(user, 'stop orders');
    const order = ctx.state.orders[req.params.orderId];
    if (!order) throw notFound(`order ${req.params.orderId}`);
    findOrder(ctx, user, order.kitchen, order.id);
    for (const id of order.serving_ids) {
      const s = ctx.state.servings[id];
      if (s) stopServing(ctx, s);
    }
    return { status: 'success', order_id: order.id };
  });

  app.put<{ Params: { servingId: string } }>('/v2/serving/stop/:servingId', async (req) => {
    const user = authRequest(ctx, req, 'v2');
    requireWriter(user, 'stop order runs');
    const serving = ctx.state.servings[req.params.servingId];
    if (!serving) throw notFound(`order run ${req.params.servingId}`);
    findOrder(ctx, user, serving.kitchen, serving.order_id);
    stopServing(ctx, serving);
    return { status: 'success', serving_hid: serving.hid };
  });
}
