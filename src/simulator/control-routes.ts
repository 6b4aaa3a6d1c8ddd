/** The simulator's test controls (controls.ts) served over HTTP under `/_sim/`, when enabled. */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SimControls } from './controls.js';
import { invalid } from './errors.js';
import type { FaultInput } from './faults.js';
import { ForeignJobs } from './foreign-jobs.js';

function body<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw invalid(parsed.error, 'body');
  return parsed.data;
}

const ms = z.number().int().nonnegative();
const Durations = z.object({ pendingMs: ms, claimMs: ms, runMs: ms, cancelMs: ms, interruptMs: ms }).partial().strict();
const OrderDurationsBody = z.object({ plannedMs: ms, runMs: ms }).partial().strict();
const JobPlanBody = z
  .object({
    job_key: z.enum(['run-profile', 'run-tests', 'run-test-generation']).optional(),
    target_id: z.string().optional(),
    fail_with: z.string().optional(),
    durations: Durations.optional(),
    count: z.number().int().positive().optional(),
  })
  .strict();
const Username = z.object({ username: z.string().optional() });

/** Serves the controls under `/_sim/`. */
export async function controlRoutes(app: FastifyInstance, { controls: c }: { controls: SimControls }): Promise<void> {
  type IdParams = { Params: { id: string } };
  app.get('/_sim/clock', async () => ({ now: new Date(c.now()).toISOString() }));
  app.post('/_sim/clock/advance', async (req) => {
    const { ms: by } = body(z.object({ ms: z.number().nonnegative() }), req.body);
    return { now: new Date(c.advanceClock(by)).toISOString() };
  });
  app.put('/_sim/job-durations', async (req) => {
    c.setJobDurations(body(Durations, req.body));
    return { ok: true };
  });
  app.put<IdParams>('/_sim/jobs/:id/durations', async (req) => {
    c.setJobDurations(body(Durations, req.body), req.params.id);
    return { ok: true };
  });
  app.put('/_sim/order-durations', async (req) => {
    c.setOrderDurations(body(OrderDurationsBody, req.body));
    return { ok: true };
  });
  app.post('/_sim/job-plans', async (req) => {
    c.planJobs(body(JobPlanBody, req.body));
    return { ok: true };
  });
  app.delete('/_sim/job-plans', async () => ({ cleared: c.clearJobPlans() }));
  app.post('/_sim/jobs', async (req, reply) =>
    reply.status(201).send(c.addForeignJobs(body(ForeignJobs, req.body)).map((j) => j.id)),
  );
  app.post<IdParams>('/_sim/jobs/:id/fail', async (req) => {
    const { error_message } = body(z.object({ error_message: z.string().min(1) }), req.body);
    return c.failJob(req.params.id, error_message);
  });
  app.post<IdParams>('/_sim/jobs/:id/interrupt', async (req) => c.interruptJob(req.params.id));
  app.post<IdParams>('/_sim/jobs/:id/pause', async (req) => c.pauseJob(req.params.id));
  app.post<IdParams>('/_sim/jobs/:id/resume', async (req) => c.resumeJob(req.params.id));
  app.post('/_sim/scheduler/shutdown', async () => ({ interrupted: c.shutdownScheduler() }));
  app.post('/_sim/scheduler/restart', async () => ({ resumed: c.restartScheduler() }));
  app.post('/_sim/tokens/expire', async (req) => ({ expired: c.expireTokens(body(Username, req.body).username) }));
  app.post('/_sim/tokens/revoke', async (req) => ({ revoked: c.revokeTokens(body(Username, req.body).username) }));
  app.post('/_sim/api-tokens', async (req) => {
    const b = body(z.object({ username: z.string(), lifetime_ms: z.number().int().positive().optional() }), req.body);
    return { token: c.issueApiToken(b.username, b.lifetime_ms) };
  });
  app.post('/_sim/oauth/refresh-tokens', async (req) => {
    const b = body(
      z
        .object({
          username: z.string(),
          client_id: z.string().min(1),
          client_secret: z.string().min(1).optional(),
          lifetime_ms: z.number().int().positive().optional(),
        })
        .strict(),
      req.body,
    );
    const token = c.issueRefreshToken({
      username: b.username,
      clientId: b.client_id,
      clientSecret: b.client_secret,
      lifetimeMs: b.lifetime_ms,
    });
    return { refresh_token: token, client_id: b.client_id, token_url: '/oauth/token' };
  });
  app.post('/_sim/faults', async (req, reply) => {
    try {
      return reply.status(201).send(c.addFault(req.body as FaultInput));
    } catch (err) {
      if (err instanceof z.ZodError) throw invalid(err, 'body');
      throw err;
    }
  });
  app.get('/_sim/faults', async () => c.faults());
  app.post<IdParams>('/_sim/faults/:id/release', async (req) => {
    c.releaseFault(req.params.id);
    return { ok: true };
  });
  app.delete('/_sim/faults', async () => {
    c.clearFaults();
    return { ok: true };
  });
  app.get('/_sim/requests', async () => c.requests());
  app.get('/_sim/counters', async () => c.counters());
  app.get('/_sim/jobs', async () => c.jobs());
  app.get<IdParams>('/_sim/test-suites/:id/definitions', async (req) => c.definitions(req.params.id));
  app.get('/_sim/orders', async () => c.orders());
}
