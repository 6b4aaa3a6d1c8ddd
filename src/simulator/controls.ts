/**
 * The test controls: the object tests and demos drive the simulator with (clock, job plans, faults, tokens,
 * counters, inspection), and the same controls served over HTTP under `/_sim/` when enabled.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { invalidateTokens, issueToken } from './auth.js';
import type { SimContext } from './context.js';
import { invalid, notFound } from './errors.js';
import type { Fault, FaultBook, FaultInput } from './faults.js';
import type { RequestLogEntry } from './http.js';
import { failJob, interruptJob, pauseJob, resumeInterrupted, resumeJob } from './jobs.js';
import { ForeignJobs, foreignJobs } from './foreign-jobs.js';
import { issueRefreshToken } from './routes-oauth.js';
import type { DefinitionRecord, JobDurations, JobKey, JobRecord, OrderDurations } from './state.js';
import { ordersView } from './views.js';

const HOUR = 3_600_000;

/** The controls tests and demos drive the simulator with (also served over HTTP under `/_sim/`). */
export interface SimControls {
  now(): number;
  advanceClock(ms: number): number;
  setJobDurations(d: Partial<JobDurations>, jobId?: string): void;
  setOrderDurations(d: Partial<OrderDurations>): void;
  /** Applies durations and/or a failure to the next `count` submitted jobs that match. */
  planJobs(plan: {
    job_key?: JobKey;
    target_id?: string;
    fail_with?: string;
    durations?: Partial<JobDurations>;
    count?: number;
  }): void;
  /** Drops the plans no job has used yet; answers how many. */
  clearJobPlans(): number;
  /**
   * Jobs another caller made on a target (a table group's profiling run, a suite's test run): the kitchen's scheduler
   * (`source`), or another API client of user `created_by`. `completed` ones are history at once (a long listing).
   */
  addForeignJobs(spec: ForeignJobs): JobRecord[];
  failJob(jobId: string, errorMessage: string): JobRecord;
  interruptJob(jobId: string): JobRecord;
  /** Pauses a running job (TestGen 5.134's `paused`), until resumed. */
  pauseJob(jobId: string): JobRecord;
  resumeJob(jobId: string): JobRecord;
  /** A scheduler shutdown: interrupts every claimed or running profiling run. */
  shutdownScheduler(): string[];
  /** The next scheduler start: every interrupted run continues. */
  restartScheduler(): string[];
  expireTokens(username?: string): number;
  revokeTokens(username?: string): number;
  issueApiToken(username: string, lifetimeMs?: number): string;
  /** An OAuth refresh token for a user and client (30 days by default), for the `/oauth/token` endpoint. */
  issueRefreshToken(grant: { username: string; clientId: string; clientSecret?: string; lifetimeMs?: number }): string;
  addFault(fault: FaultInput): Fault;
  /** What delay fault `id` holds goes on now, and what it holds later at once (a hold a test ends when it is ready). */
  releaseFault(id: string): void;
  clearFaults(): void;
  faults(): Fault[];
  requests(): RequestLogEntry[];
  counters(): SimCounters;
  job(jobId: string): JobRecord | undefined;
  jobs(): JobRecord[];
  definitions(suiteId: string): DefinitionRecord[];
  /** Changes fields of one stored definition, as a user editing it in the service would (in-process tests only). */
  editDefinition(suiteId: string, id: string, fields: Partial<DefinitionRecord>): void;
  orders(): ReturnType<typeof ordersView>;
  /** Runs every due transition now (requests do this on their own). */
  tick(): void;
}

export interface SimCounters {
  logins: number;
  failedLogins: number;
  requests: number;
  /** Jobs submitted through the API, per table group (profiling) or test suite (test runs). */
  submissions: Record<string, number>;
  /** Cancel requests per job, including those answered 409. */
  cancels: Record<string, number>;
  jobsByKey: Record<string, number>;
}

export function createControls(
  ctx: SimContext,
  deps: { faults: FaultBook; tick: () => void; persist: () => void; requests: () => RequestLogEntry[] },
): SimControls {
  const { state } = ctx;
  const { faults, tick, persist } = deps;
  const requireJob = (id: string) => {
    const job = state.jobs[id];
    if (!job) throw notFound(`job ${id}`);
    return job;
  };
  return {
    now: () => ctx.clock.now(),
    advanceClock: (ms) => {
      const now = ctx.clock.advance(ms);
      tick();
      persist();
      return now;
    },
    setJobDurations: (d, jobId) => {
      if (!jobId) {
        Object.assign(state.job_durations, d);
        return;
      }
      const job = requireJob(jobId);
      if (d.runMs !== undefined) {
        // Keep the running time already done; owe the rest of the new run time.
        const done = job.durations.runMs - job.run_remaining_ms;
        job.run_remaining_ms = Math.max(0, d.runMs - done);
      }
      Object.assign(job.durations, d);
      tick();
    },
    setOrderDurations: (d) => Object.assign(state.order_durations, d),
    planJobs: (plan) => {
      state.job_plans.push({ id: crypto.randomUUID(), ...plan, remaining: plan.count ?? 1 });
    },
    clearJobPlans: () => {
      const left = state.job_plans.length;
      state.job_plans = [];
      return left;
    },
    addForeignJobs: (spec) => {
      tick();
      const made = foreignJobs(ctx, spec);
      persist();
      return made;
    },
    failJob: (id, message) => failJob(ctx, requireJob(id), message),
    interruptJob: (id) => {
      tick();
      return interruptJob(ctx, requireJob(id));
    },
    pauseJob: (id) => {
      tick();
      return pauseJob(ctx, requireJob(id));
    },
    resumeJob: (id) => {
      tick();
      return resumeJob(ctx, requireJob(id));
    },
    shutdownScheduler: () => {
      tick();
      return Object.values(state.jobs)
        .filter((j) => j.job_key === 'run-profile' && (j.status === 'running' || j.status === 'claimed'))
        .map((j) => interruptJob(ctx, j).id);
    },
    restartScheduler: () => {
      tick();
      return resumeInterrupted(ctx);
    },
    expireTokens: (username) => invalidateTokens(ctx, 'expire', username),
    revokeTokens: (username) => invalidateTokens(ctx, 'revoke', username),
    issueApiToken: (username, lifetimeMs = HOUR) => {
      if (!ctx.seed.users.some((u) => u.username === username)) throw notFound(`user ${username}`);
      return issueToken(ctx, username, 'api', lifetimeMs);
    },
    issueRefreshToken: (grant) => {
      if (!ctx.seed.users.some((u) => u.username === grant.username)) throw notFound(`user ${grant.username}`);
      return issueRefreshToken(ctx, { ...grant, lifetimeMs: grant.lifetimeMs ?? 30 * 24 * HOUR });
    },
    addFault: (f) => faults.add(f),
    releaseFault: (id) => {
      if (!faults.release(id)) throw notFound(`fault ${id}`);
    },
    clearFaults: () => faults.clear(),
    faults: () => faults.list(),
    requests: deps.requests,
    counters: () => {
      const submissions: Record<string, number> = {};
      const jobsByKey: Record<string, number> = {};
      for (const job of Object.values(state.jobs)) {
        jobsByKey[job.job_key] = (jobsByKey[job.job_key] ?? 0) + 1;
        if (job.source !== 'api') continue;
        const target = job.job_key === 'run-tests' ? (job.test_suite_id ?? '') : job.table_group_id;
        submissions[target] = (submissions[target] ?? 0) + 1;
      }
      return {
        logins: state.counters.logins,
        failedLogins: state.counters.failed_logins,
        requests: deps.requests().length,
        submissions,
        cancels: { ...state.counters.cancels },
        jobsByKey,
      };
    },
    job: (id) => {
      tick();
      return state.jobs[id];
    },
    jobs: () => {
      tick();
      return state.job_order.map((id) => state.jobs[id]).filter((j): j is JobRecord => j !== undefined);
    },
    definitions: (suiteId) => (state.definitions[suiteId] ?? []).map((d) => ({ ...d })),
    editDefinition: (suiteId, id, fields) => {
      const stored = state.definitions[suiteId]?.find((d) => d.id === id);
      if (!stored) throw new Error(`no definition ${id} in test suite ${suiteId}`);
      Object.assign(stored, fields);
      persist();
    },
    orders: () => {
      tick();
      return ordersView(ctx);
    },
    tick,
  };
}

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
