/**
 * The simulator app: every endpoint of the service (spec + deployed variants) and the test controls under
 * `/_sim/` (off unless enabled). `buildSimulator` builds the app; `startSimulator` also listens.
 */
import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { authenticate, invalidateTokens, issueToken, login, requireProject, requireWriter } from './auth.js';
import { SimClock } from './clock.js';
import { DEFAULT_VARIANTS, type SimContext, type SimUser, type SimVariants } from './context.js';
import { defaultSeed } from './default-seed.js';
import { Origin, exportDefinitions, importDefinitions, parseImportRequest, type SuiteRef } from './definitions.js';
import { SimError, apiError, invalid, notFound, unprocessable } from './errors.js';
import { FaultBook, type Fault, type FaultInput } from './faults.js';
import { advanceJobs, cancelJob, failJob, interruptJob, resumeInterrupted, submitJob } from './jobs.js';
import { advanceServings, createOrder, findOrder, servingView, stopServing } from './orders.js';
import { parseSeed, type Seed, type SeedInput } from './seed.js';
import {
  DEFAULT_JOB_DURATIONS,
  DEFAULT_ORDER_DURATIONS,
  initialState,
  loadStateFile,
  saveStateFile,
  type DefinitionRecord,
  type JobDurations,
  type JobKey,
  type JobRecord,
  type OrderDurations,
  type ProfilingResult,
  type TestRunResult,
} from './state.js';

export interface SimulatorOptions {
  /** The project to simulate. @default the DEMO project of default-seed.ts */
  seed?: SeedInput;
  /** Serve the test controls under `/_sim/`. @default false */
  controls?: boolean;
  /** Session token lifetime. @default 4 hours */
  tokenLifetimeMs?: number;
  /** The clock stands still unless advanced through the controls. @default false (real time plus offset) */
  manualClock?: boolean;
  /** Phase durations of new jobs. @default DEFAULT_JOB_DURATIONS */
  jobDurations?: Partial<JobDurations>;
  /** Phase durations of new order runs. @default DEFAULT_ORDER_DURATIONS */
  orderDurations?: Partial<OrderDurations>;
  /** Deployment variants to play. @default DEFAULT_VARIANTS */
  variants?: Partial<SimVariants>;
  /** Prefix in front of `/api/v1` (the spec leaves the API's base open). @default '' */
  apiBasePath?: string;
  /** Keep state in this JSON file, so that a restarted simulator still knows its jobs. @default in memory */
  stateFile?: string;
  /** Largest accepted request body; larger ones get 413. @default 64 MiB */
  maxBodyBytes?: number;
  /** Called with one line per request (never with credentials). @default silent */
  log?: (line: string) => void;
}

export interface RequestLogEntry {
  seq: number;
  at: string;
  method: string;
  path: string;
  status: number;
  username: string | null;
  fault: Fault['kind'] | null;
  /** The client had closed the connection before the answer was written (an aborted or timed-out request). */
  client_closed: boolean;
}

const HOUR = 3_600_000;
const UUID = z.uuid();

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
  failJob(jobId: string, errorMessage: string): JobRecord;
  interruptJob(jobId: string): JobRecord;
  /** A scheduler shutdown: interrupts every claimed or running profiling run. */
  shutdownScheduler(): string[];
  /** The next scheduler start: every interrupted run continues. */
  restartScheduler(): string[];
  expireTokens(username?: string): number;
  revokeTokens(username?: string): number;
  issueApiToken(username: string, lifetimeMs?: number): string;
  addFault(fault: FaultInput): Fault;
  clearFaults(): void;
  faults(): Fault[];
  requests(): RequestLogEntry[];
  counters(): SimCounters;
  job(jobId: string): JobRecord | undefined;
  jobs(): JobRecord[];
  definitions(suiteId: string): DefinitionRecord[];
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

export interface Simulator {
  app: FastifyInstance;
  controls: SimControls;
  seed: Seed;
  /** Saves the state file now (done after every request when `stateFile` is set). */
  persist(): void;
}

function ordersView(ctx: SimContext) {
  return Object.values(ctx.state.orders).map((o) => ({
    ...o,
    created_at: ctx.clock.iso(o.created_at),
    servings: o.serving_ids
      .map((id) => ctx.state.servings[id])
      .filter((s) => s !== undefined)
      .map((s) => servingView(ctx, s)),
  }));
}

function uuidParam(name: string, value: string, where: 'path' | 'query' = 'path'): string {
  if (!UUID.safeParse(value).success)
    throw unprocessable([{ loc: [where, name], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }]);
  return value;
}

const iso = (ctx: SimContext, ms: number | null) => (ms === null ? null : ctx.clock.iso(ms));

export function buildSimulator(options: SimulatorOptions = {}): Simulator {
  const seed = parseSeed(options.seed ?? defaultSeed);
  const jobDurations = { ...DEFAULT_JOB_DURATIONS, ...options.jobDurations };
  const orderDurations = { ...DEFAULT_ORDER_DURATIONS, ...options.orderDurations };
  const kept = options.stateFile ? loadStateFile(options.stateFile) : undefined;
  const state = kept ?? initialState(seed, jobDurations, orderDurations);
  const ctx: SimContext = {
    seed,
    state,
    clock: new SimClock(state.clock_offset_ms, options.manualClock ?? false),
    variants: { ...DEFAULT_VARIANTS, ...options.variants },
    tokenLifetimeMs: options.tokenLifetimeMs ?? 4 * HOUR,
    groups: new Map(seed.table_groups.map((g) => [g.id, g])),
    kitchens: new Map(seed.kitchens.map((k) => [k.name, k])),
  };
  const faults = new FaultBook();
  const requestLog: RequestLogEntry[] = [];
  const faultOf = new WeakMap<FastifyRequest, Fault>();
  const userOf = new WeakMap<FastifyRequest, string>();
  const api = `${options.apiBasePath ?? ''}/api/v1`;

  const tick = () => {
    advanceJobs(ctx);
    advanceServings(ctx);
  };
  const persist = () => {
    if (!options.stateFile) return;
    state.clock_offset_ms = ctx.clock.offset;
    saveStateFile(options.stateFile, state);
  };

  const app = Fastify({
    logger: false,
    bodyLimit: options.maxBodyBytes ?? 64 * 1024 * 1024,
    forceCloseConnections: true,
    return503OnClosing: true,
  });
  void app.register(formbody);

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(
        unprocessable([{ loc: ['body'], msg: `JSON decode error: ${(err as Error).message}`, type: 'json_invalid' }]),
      );
    }
  });

  app.setErrorHandler((err, req, reply) => {
    if (err instanceof SimError) return reply.status(err.status).headers(err.headers).send(err.body);
    const code = (err as { code?: string }).code;
    if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      return reply.status(415).send({
        detail: {
          errors: [
            {
              code: 'unsupported_media_type',
              detail: `unsupported content type ${req.headers['content-type'] ?? '(none)'}`,
            },
          ],
        },
      });
    if (code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return reply
        .status(413)
        .send({ detail: { errors: [{ code: 'payload_too_large', detail: 'request body too large' }] } });
    const e = err instanceof Error ? err : new Error(String(err));
    const status = (err as { statusCode?: number }).statusCode;
    if (status && status >= 400 && status < 500)
      return reply.status(status).send({ detail: { errors: [{ code: 'bad_request', detail: e.message }] } });
    options.log?.(`internal error on ${req.method} ${req.url}: ${e.stack ?? e.message}`);
    return reply.status(500).send({ detail: { errors: [{ code: 'internal_error', detail: 'internal error' }] } });
  });
  app.setNotFoundHandler((req, reply) =>
    reply
      .status(404)
      .send({ detail: { errors: [{ code: 'not_found', detail: `no route ${req.method} ${req.url.split('?')[0]}` }] } }),
  );

  const closedByClient = new WeakSet<FastifyRequest>();
  const logRequest = (req: FastifyRequest, status: number) => {
    const entry: RequestLogEntry = {
      seq: requestLog.length + 1,
      at: ctx.clock.iso(),
      method: req.method,
      path: req.url.split('?')[0] ?? req.url,
      status,
      username: userOf.get(req) ?? null,
      fault: faultOf.get(req)?.kind ?? null,
      client_closed: closedByClient.has(req),
    };
    if (!entry.path.startsWith('/_sim/')) requestLog.push(entry);
    options.log?.(`${entry.method} ${req.url} -> ${status}${entry.fault ? ` [fault: ${entry.fault}]` : ''}`);
  };

  app.addHook('onRequest', async (req, reply) => {
    tick();
    const path = req.url.split('?')[0] ?? req.url;
    if (path.startsWith('/_sim/')) return;
    const fault = faults.take(req.method, path);
    if (!fault) return;
    faultOf.set(req, fault);
    switch (fault.kind) {
      case 'status':
        return reply
          .status(fault.status)
          .send({ detail: { errors: [{ code: 'injected_fault', detail: `injected ${fault.status}` }] } });
      case 'rate_limit':
        return reply
          .status(429)
          .header('retry-after', String(fault.retry_after))
          .send({ detail: { errors: [{ code: 'rate_limited', detail: 'too many requests' }] } });
      case 'reset':
        logRequest(req, 0);
        reply.hijack();
        req.raw.socket.destroy();
        return;
      case 'delay':
        await delay(fault.delay_ms, undefined, { ref: false });
        tick();
        return;
      case 'respond':
        return reply.status(fault.status).send(fault.body ?? null);
      case 'malformed_json':
        return reply.status(200).header('content-type', 'application/json').send('{"id": "3f1c", "status": ');
      default:
        return; // unknown_status and drop_after_commit act after the handler
    }
  });
  app.addHook('onSend', async (req, reply, payload) => {
    if (faultOf.get(req)?.kind === 'drop_after_commit') {
      // The handler has run and committed its change; the client never sees the answer.
      logRequest(req, 0);
      req.raw.socket.destroy();
    }
    return payload;
  });
  app.addHook('onRequestAbort', async (req) => {
    // The client went away before the answer (an aborted or timed-out request): logged as 499, like nginx.
    const kind = faultOf.get(req)?.kind;
    if (kind === 'reset' || kind === 'drop_after_commit') return; // closed by the fault, logged there
    closedByClient.add(req);
    logRequest(req, 499);
  });
  app.addHook('onResponse', async (req, reply) => {
    if (closedByClient.has(req)) return;
    const kind = faultOf.get(req)?.kind;
    if (kind !== 'reset' && kind !== 'drop_after_commit') logRequest(req, reply.statusCode);
    persist();
  });

  const auth = (req: FastifyRequest, surface: 'v2' | 'api'): SimUser => {
    const user = authenticate(ctx, req.headers.authorization, surface);
    userOf.set(req, user.username);
    return user;
  };

  // ---- /v2: login and orders --------------------------------------------------------------------------------
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
    userOf.set(req, String(body?.username));
    return reply.type('text/plain; charset=utf-8').send(token);
  });

  app.get('/v2/validatetoken', async (req) => {
    const user = auth(req, 'v2');
    return { token: 'valid', username: user.username };
  });

  const OrderBody = z
    .object({ parameters: z.record(z.string(), z.unknown()).optional(), schedule: z.unknown().optional() })
    .loose()
    .optional();
  app.put<{ Params: { kitchen: string; recipe: string; variation: string } }>(
    '/v2/order/create/:kitchen/:recipe/:variation',
    async (req) => {
      const user = auth(req, 'v2');
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
      );
      return { status: 'success', [ctx.variants.orderIdKey]: order.id, variable_overrides: order.parameters };
    },
  );

  app.get<{ Params: { kitchen: string; orderId: string }; Querystring: { count?: string } }>(
    '/v2/order/servings/:kitchen/:orderId',
    async (req) => {
      const user = auth(req, 'v2');
      const order = findOrder(ctx, user, req.params.kitchen, req.params.orderId);
      const count = req.query.count === undefined ? Infinity : Number(req.query.count);
      const servings = order.serving_ids
        .map((id) => ctx.state.servings[id])
        .filter((s) => s !== undefined)
        .slice(0, count)
        .map((s) => servingView(ctx, s));
      return { servings };
    },
  );

  app.post<{ Params: { kitchen: string } }>('/v2/order/details/:kitchen', async (req) => {
    const user = auth(req, 'v2');
    const body = z.object({ serving_hid: z.string(), summary: z.boolean().optional() }).safeParse(req.body);
    if (!body.success) throw invalid(body.error, 'body');
    const serving = ctx.state.servings[body.data.serving_hid];
    if (!serving || serving.kitchen !== req.params.kitchen) throw notFound(`order run ${body.data.serving_hid}`);
    findOrder(ctx, user, serving.kitchen, serving.order_id);
    return { servings: [servingView(ctx, serving)] };
  });

  app.put<{ Params: { orderId: string } }>('/v2/order/stop/:orderId', async (req) => {
    const user = auth(req, 'v2');
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
    const user = auth(req, 'v2');
    requireWriter(user, 'stop order runs');
    const serving = ctx.state.servings[req.params.servingId];
    if (!serving) throw notFound(`order run ${req.params.servingId}`);
    findOrder(ctx, user, serving.kitchen, serving.order_id);
    stopServing(ctx, serving);
    return { status: 'success', serving_hid: serving.hid };
  });

  // ---- /api/v1: jobs, summaries, export and import -------------------------------------------------------------
  const jobView = (job: JobRecord, req?: FastifyRequest) => ({
    id: job.id,
    job_key: job.job_key,
    status:
      req && faultOf.get(req)?.kind === 'unknown_status'
        ? (faultOf.get(req)?.unknown_status ?? job.status)
        : job.status,
    source: job.source,
    project_code: job.project_code,
    table_group_id: job.table_group_id,
    test_suite_id: job.test_suite_id,
    created_at: ctx.clock.iso(job.created_at),
    claimed_at: iso(ctx, job.claimed_at),
    started_at: iso(ctx, job.started_at),
    completed_at: iso(ctx, job.completed_at),
    error_message: job.error_message,
  });

  const findGroup = (user: SimUser, id: string) => {
    const group = ctx.groups.get(uuidParam('table_group_id', id));
    if (!group) throw notFound(`table group ${id}`);
    requireProject(user, group.project_code, `table group ${id}`);
    return group;
  };
  const findSuite = (user: SimUser, id: string): SuiteRef => {
    const suite = ctx.seed.test_suites.find((s) => s.id === uuidParam('test_suite_id', id));
    if (!suite) throw notFound(`test suite ${id}`);
    requireProject(user, suite.project_code, `test suite ${id}`);
    return suite;
  };
  const findJob = (user: SimUser, id: string) => {
    const job = ctx.state.jobs[uuidParam('job_id', id)];
    if (!job) throw notFound(`job ${id}`);
    requireProject(user, job.project_code, `job ${id}`);
    return job;
  };

  app.get(`${api}/health`, async () => ({ status: 'healthy', edition: 'simulator', version: '1.0.0' }));

  app.post<{ Params: { id: string } }>(`${api}/table-groups/:id/profiling-runs`, async (req, reply) => {
    const user = auth(req, 'api');
    const group = findGroup(user, req.params.id);
    requireWriter(user, 'submit profiling runs');
    const job = submitJob(ctx, {
      job_key: 'run-profile',
      source: 'api',
      project_code: group.project_code,
      table_group_id: group.id,
      test_suite_id: null,
      created_by: user.username,
    });
    return reply.status(202).send({ id: job.id, created_at: ctx.clock.iso(job.created_at) });
  });

  app.post<{ Params: { id: string } }>(`${api}/test-suites/:id/test-runs`, async (req, reply) => {
    const user = auth(req, 'api');
    const suite = findSuite(user, req.params.id);
    requireWriter(user, 'submit test runs');
    const job = submitJob(ctx, {
      job_key: 'run-tests',
      source: 'api',
      project_code: suite.project_code,
      table_group_id: suite.table_group_id,
      test_suite_id: suite.id,
      created_by: user.username,
    });
    return reply.status(202).send({ id: job.id, created_at: ctx.clock.iso(job.created_at) });
  });

  app.get<{ Params: { id: string } }>(`${api}/jobs/:id`, async (req) =>
    jobView(findJob(auth(req, 'api'), req.params.id), req),
  );

  app.post<{ Params: { id: string } }>(`${api}/jobs/:id/cancel`, async (req) => {
    const user = auth(req, 'api');
    const job = findJob(user, req.params.id);
    requireWriter(user, 'cancel jobs');
    return jobView(cancelJob(ctx, job), req);
  });

  const ListQuery = z.object({
    job_key: z.string().optional(),
    status: z.string().optional(),
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  });
  app.get<{ Params: { code: string }; Querystring: Record<string, string> }>(
    `${api}/projects/:code/jobs`,
    async (req) => {
      const user = auth(req, 'api');
      requireProject(user, req.params.code, `project ${req.params.code}`);
      const q = ListQuery.safeParse(req.query);
      if (!q.success) throw invalid(q.error, 'query');
      const { job_key, status, page, limit } = q.data;
      const all = [...ctx.state.job_order]
        .reverse()
        .map((id) => ctx.state.jobs[id])
        .filter((j): j is JobRecord => j !== undefined && j.project_code === req.params.code)
        .filter((j) => (!job_key || j.job_key === job_key) && (!status || j.status === status));
      return {
        items: all.slice((page - 1) * limit, page * limit).map((j) => jobView(j)),
        page,
        limit,
        total: all.length,
      };
    },
  );

  const testRunView = (job: JobRecord) => {
    const r = job.result as TestRunResult | null;
    const result =
      r &&
      (ctx.variants.summaryShape === 'spec'
        ? { score: r.score, result_counts: r.result_counts }
        : { score: r.score, tests: r.result_counts });
    return {
      id: job.id,
      status: job.status,
      test_suite_id: job.test_suite_id,
      table_group_id: job.table_group_id,
      started_at: iso(ctx, job.started_at),
      completed_at: iso(ctx, job.completed_at),
      result: result ?? null,
    };
  };
  const profilingView = (job: JobRecord) => {
    const r = job.result as ProfilingResult | null;
    let result: object | null = null;
    if (r) {
      const { issue_counts, ...rest } = r;
      result =
        ctx.variants.summaryShape === 'spec'
          ? r
          : { ...rest, issues: { ...issue_counts.hygiene_issues, dismissed: issue_counts.dismissed } };
    }
    return {
      id: job.id,
      status: job.status,
      table_group_id: job.table_group_id,
      started_at: iso(ctx, job.started_at),
      completed_at: iso(ctx, job.completed_at),
      result,
    };
  };
  app.get<{ Params: { id: string } }>(`${api}/test-runs/:id`, async (req) => {
    const job = findJob(auth(req, 'api'), req.params.id);
    if (job.job_key !== 'run-tests') throw notFound(`test run ${req.params.id}`);
    return testRunView(job);
  });
  app.get<{ Params: { id: string } }>(`${api}/profiling-runs/:id`, async (req) => {
    const job = findJob(auth(req, 'api'), req.params.id);
    if (job.job_key !== 'run-profile') throw notFound(`profiling run ${req.params.id}`);
    return profilingView(job);
  });

  const ExportQuery = z.object({
    origin: Origin.optional(),
    table_name: z.string().optional(),
    test_type: z.string().optional(),
  });
  app.get<{ Params: { id: string }; Querystring: Record<string, string> }>(
    `${api}/test-suites/:id/test-definition-export`,
    async (req) => {
      const user = auth(req, 'api');
      const suite = findSuite(user, req.params.id);
      const q = ExportQuery.safeParse(req.query);
      if (!q.success) throw invalid(q.error, 'query');
      return exportDefinitions(ctx, suite, q.data);
    },
  );

  app.post<{ Params: { id: string } }>(`${api}/test-suites/:id/test-definition-import`, async (req) => {
    const user = auth(req, 'api');
    const suite = findSuite(user, req.params.id);
    if (!(req.headers['content-type'] ?? '').startsWith('application/json'))
      throw apiError(
        415,
        'unsupported_media_type',
        `expected application/json, got ${req.headers['content-type'] ?? '(none)'}`,
      );
    return importDefinitions(ctx, user, suite, parseImportRequest(req.body));
  });

  // ---- controls ------------------------------------------------------------------------------------------------
  const requireJob = (id: string) => {
    const job = ctx.state.jobs[id];
    if (!job) throw notFound(`job ${id}`);
    return job;
  };
  const controls: SimControls = {
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
    failJob: (id, message) => failJob(ctx, requireJob(id), message),
    interruptJob: (id) => {
      tick();
      return interruptJob(ctx, requireJob(id));
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
      if (!seed.users.some((u) => u.username === username)) throw notFound(`user ${username}`);
      return issueToken(ctx, username, 'api', lifetimeMs);
    },
    addFault: (f) => faults.add(f),
    clearFaults: () => faults.clear(),
    faults: () => faults.list(),
    requests: () => requestLog.map((e) => ({ ...e })),
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
        requests: requestLog.length,
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
    orders: () => {
      tick();
      return ordersView(ctx);
    },
    tick,
  };
  if (options.controls) registerControlRoutes(app, controls);

  return { app, controls, seed, persist };
}

function body<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw invalid(parsed.error, 'body');
  return parsed.data;
}

const Durations = z
  .object({
    pendingMs: z.number().int().nonnegative(),
    claimMs: z.number().int().nonnegative(),
    runMs: z.number().int().nonnegative(),
    cancelMs: z.number().int().nonnegative(),
    interruptMs: z.number().int().nonnegative(),
  })
  .partial()
  .strict();

function registerControlRoutes(app: FastifyInstance, c: SimControls): void {
  type IdParams = { Params: { id: string } };
  app.get('/_sim/clock', async () => ({ now: new Date(c.now()).toISOString() }));
  app.post('/_sim/clock/advance', async (req) => {
    const { ms } = body(z.object({ ms: z.number().nonnegative() }), req.body);
    return { now: new Date(c.advanceClock(ms)).toISOString() };
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
    c.setOrderDurations(
      body(
        z
          .object({ plannedMs: z.number().int().nonnegative(), runMs: z.number().int().nonnegative() })
          .partial()
          .strict(),
        req.body,
      ),
    );
    return { ok: true };
  });
  app.post('/_sim/job-plans', async (req) => {
    c.planJobs(
      body(
        z
          .object({
            job_key: z.enum(['run-profile', 'run-tests', 'run-test-generation']).optional(),
            target_id: z.string().optional(),
            fail_with: z.string().optional(),
            durations: Durations.optional(),
            count: z.number().int().positive().optional(),
          })
          .strict(),
        req.body,
      ),
    );
    return { ok: true };
  });
  app.post<IdParams>('/_sim/jobs/:id/fail', async (req) => {
    const { error_message } = body(z.object({ error_message: z.string().min(1) }), req.body);
    return c.failJob(req.params.id, error_message);
  });
  app.post<IdParams>('/_sim/jobs/:id/interrupt', async (req) => c.interruptJob(req.params.id));
  app.post('/_sim/scheduler/shutdown', async () => ({ interrupted: c.shutdownScheduler() }));
  app.post('/_sim/scheduler/restart', async () => ({ resumed: c.restartScheduler() }));
  app.post('/_sim/tokens/expire', async (req) => ({
    expired: c.expireTokens(body(z.object({ username: z.string().optional() }), req.body).username),
  }));
  app.post('/_sim/tokens/revoke', async (req) => ({
    revoked: c.revokeTokens(body(z.object({ username: z.string().optional() }), req.body).username),
  }));
  app.post('/_sim/api-tokens', async (req) => {
    const b = body(z.object({ username: z.string(), lifetime_ms: z.number().int().positive().optional() }), req.body);
    return { token: c.issueApiToken(b.username, b.lifetime_ms) };
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

export interface RunningSimulator extends Simulator {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Builds the simulator and listens (port 0 picks a free port). */
export async function startSimulator(
  options: SimulatorOptions & { port?: number; host?: string } = {},
): Promise<RunningSimulator> {
  const sim = buildSimulator(options);
  await sim.app.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
  const address = sim.app.server.address();
  if (!address || typeof address === 'string') throw new Error('simulator did not bind a TCP port');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    ...sim,
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: async () => {
      sim.persist();
      await sim.app.close();
    },
  };
}
