/**
 * The test controls: the object tests and demos drive the simulator with (clock, job plans, faults, tokens,
 * counters, inspection); control-routes.ts serves them over HTTP under `/_sim/` when enabled.
 */
import { invalidateTokens, issueToken } from './auth.js';
import type { SimContext } from './context.js';
import { notFound } from './errors.js';
import type { Fault, FaultBook, FaultInput } from './faults.js';
import type { RequestLogEntry } from './http.js';
import { failJob, interruptJob, pauseJob, resumeInterrupted, resumeJob } from './jobs.js';
import { foreignJobs, type ForeignJobs } from './foreign-jobs.js';
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
