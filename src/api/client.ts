/**
 * A typed client for the service: every endpoint of the contract and the deployed order-run and job calls.
 * Plain TypeScript (no Temporal), got for HTTP, zod for every response. No hidden retries unless asked for.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import got, { RequestError, TimeoutError, type Got, type Method } from 'got';
import { z } from 'zod';
import type { ServiceError } from './errors.js';
import {
  AuthenticationFailed,
  Conflict,
  ConnectionFailed,
  InvalidClientOptions,
  InvalidRequest,
  NotFound,
  PermissionDenied,
  RateLimited,
  RequestAborted,
  RequestTimedOut,
  ServerError,
  StrictImportRejected,
  UnexpectedResponse,
  describeErrorBody,
  parseRetryAfter,
  strictImportResult,
  type ServiceErrorInit,
} from './errors.js';
import type { OrderRun } from './schemas.js';
import {
  ExportFile,
  ExportFilters,
  Health,
  ImportConfig,
  ImportResult,
  Job,
  JobList,
  JobSubmission,
  OrderCreated,
  OrderRuns,
  ProfilingSummary,
  TestRunSummary,
  type ExportFileInput,
} from './schemas.js';
import { SessionManager } from './session.js';

/** Where the bearer token of the `/api/v1` calls comes from. Deployments differ. */
export type ApiBearer =
  | { type: 'session' }
  | { type: 'static'; token: string }
  | { type: 'file'; path: string }
  | { type: 'callback'; getToken: (opts: { signal?: AbortSignal; refresh: boolean }) => Promise<string> };

export interface ServicePaths {
  /** Job status (spec: not shown). @default '/api/v1/jobs/{job_id}' */
  jobStatus: string;
  /** Cancel a job (spec: not shown). @default '/api/v1/jobs/{job_id}/cancel' */
  jobCancel: string;
  /** Job listing (spec: not shown). @default '/api/v1/projects/{project_code}/jobs' */
  jobList: string;
}

export const DEFAULT_PATHS: ServicePaths = {
  jobStatus: '/api/v1/jobs/{job_id}',
  jobCancel: '/api/v1/jobs/{job_id}/cancel',
  jobList: '/api/v1/projects/{project_code}/jobs',
};

export interface ResponseEvent {
  method: string;
  /** Path and query; never credentials. */
  path: string;
  status: number | null;
  durationMs: number;
}

export interface ServiceClientOptions {
  /** Base address of the service: `/v2` calls (login, orders) go below it. */
  baseUrl: string;
  /** Base address of the `/api/v1` calls. @default baseUrl */
  apiBaseUrl?: string;
  /** Login credentials (form fields of `POST /v2/login`). Required for the session bearer and for `/v2` calls. */
  credentials?: { username: string; password: string };
  /** Bearer of the `/api/v1` calls. @default { type: 'session' } (the `/v2/login` token) */
  apiBearer?: ApiBearer;
  /** Paths of the calls the spec leaves unshown. @default DEFAULT_PATHS */
  paths?: Partial<ServicePaths>;
  /** Per-request timeout. @default 30000 */
  timeoutMs?: number;
  /** Session token lifetime. @default 4 hours */
  tokenLifetimeMs?: number;
  /** Log in again this long before the token expires. @default 5 minutes */
  refreshMarginMs?: number;
  /** Keep-alive sockets per host. @default 64 */
  maxSockets?: number;
  /** Reuse connections (keep-alive). @default true */
  keepAlive?: boolean;
  /**
   * Retries of idempotent calls (GET, PUT) on 408/429/5xx and network errors, honouring Retry-After. For standalone
   * use only: under Temporal, activities own retries. @default { limit: 0 }
   */
  retry?: { limit: number };
  /** Called after every response (for logs and metrics). @default none */
  onResponse?: (event: ResponseEvent) => void;
  /** Clock of the session manager, for tests. @default Date.now */
  now?: () => number;
}

export interface CallOptions {
  /** Aborts the request in flight. */
  signal?: AbortSignal;
}

const OptionsSchema = z.object({
  baseUrl: z.url({ protocol: /^https?$/ }),
  apiBaseUrl: z.url({ protocol: /^https?$/ }).optional(),
  credentials: z.object({ username: z.string().min(1), password: z.string().min(1) }).optional(),
  paths: z
    .object({
      jobStatus: z.string().startsWith('/').includes('{job_id}'),
      jobCancel: z.string().startsWith('/').includes('{job_id}'),
      jobList: z.string().startsWith('/').includes('{project_code}'),
    })
    .partial()
    .optional(),
  timeoutMs: z.number().int().positive().optional(),
  tokenLifetimeMs: z.number().int().positive().optional(),
  refreshMarginMs: z.number().int().nonnegative().optional(),
  maxSockets: z.number().int().positive().optional(),
  retry: z.object({ limit: z.number().int().min(0).max(10) }).optional(),
});

type Surface = 'v2' | 'api';
interface Request {
  method: Method;
  surface: Surface;
  path: string;
  json?: unknown;
  searchParams?: Record<string, string | number | undefined>;
  signal?: AbortSignal | undefined;
  /** Send without a bearer (health). @default false */
  anonymous?: boolean;
  /** Which statuses count as success. @default 2xx */
  ok?: (status: number) => boolean;
}
interface RawResponse {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

const seg = (s: string) => encodeURIComponent(s);

export class ServiceClient {
  readonly session: SessionManager;
  readonly #credentials: { username: string; password: string } | undefined;
  readonly #bearer: ApiBearer;
  readonly #base: string;
  readonly #apiBase: string;
  readonly #paths: ServicePaths;
  readonly #got: Got;
  readonly #agents: { http: http.Agent; https: https.Agent };
  readonly #onResponse: ((e: ResponseEvent) => void) | undefined;

  constructor(options: ServiceClientOptions) {
    const checked = OptionsSchema.safeParse(options);
    if (!checked.success) {
      const problems = checked.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
      throw new InvalidClientOptions(`invalid ServiceClient options:\n${problems}`);
    }
    const bearer = options.apiBearer ?? { type: 'session' };
    if (bearer.type === 'static' && !bearer.token)
      throw new InvalidClientOptions('invalid ServiceClient options:\n  apiBearer.token: empty');
    if (bearer.type === 'file' && !bearer.path)
      throw new InvalidClientOptions('invalid ServiceClient options:\n  apiBearer.path: empty');
    this.#credentials = options.credentials;
    this.#bearer = bearer;
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#apiBase = (options.apiBaseUrl ?? options.baseUrl).replace(/\/+$/, '');
    this.#paths = { ...DEFAULT_PATHS, ...options.paths };
    this.#onResponse = options.onResponse;
    const maxSockets = options.maxSockets ?? 64;
    this.#agents = {
      http: new http.Agent({ keepAlive: options.keepAlive ?? true, maxSockets }),
      https: new https.Agent({ keepAlive: options.keepAlive ?? true, maxSockets }),
    };
    const limit = options.retry?.limit ?? 0;
    this.#got = got.extend({
      timeout: { request: options.timeoutMs ?? 30_000 },
      throwHttpErrors: false,
      responseType: 'text',
      agent: this.#agents,
      headers: { 'user-agent': 'dataops-temporal' },
      retry: {
        limit,
        methods: ['GET', 'PUT', 'HEAD', 'DELETE', 'OPTIONS'],
        statusCodes: [408, 429, 500, 502, 503, 504],
      },
    });
    this.session = new SessionManager({
      login: (signal) => this.#loginRequest(signal),
      lifetimeMs: options.tokenLifetimeMs,
      refreshMarginMs: options.refreshMarginMs,
      now: options.now,
    });
  }

  /** Closes the keep-alive sockets. */
  close(): void {
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }

  toJSON(): Record<string, unknown> {
    return { baseUrl: this.#base, apiBaseUrl: this.#apiBase, username: this.#credentials?.username ?? null };
  }

  /** The configured user name (not a secret), if any. */
  get username(): string | undefined {
    return this.#credentials?.username;
  }

  // ---- session -------------------------------------------------------------------------------------------------

  /** Logs in now (checking the credentials); returns who and until when, never the token. */
  async login(opts: CallOptions = {}): Promise<{ username: string; expiresAt: string | null }> {
    await this.session.refresh(opts.signal);
    return { username: this.#credentials?.username ?? '', expiresAt: this.session.info().expiresAt };
  }

  async #loginRequest(signal?: AbortSignal): Promise<string> {
    if (!this.#credentials)
      throw new AuthenticationFailed('no credentials configured for POST /v2/login', {
        method: 'POST',
        url: '/v2/login',
      });
    const { username, password } = this.#credentials;
    const res = await this.#transport('POST', 'v2', '/v2/login', { form: { username, password }, signal });
    if (res.status < 200 || res.status >= 300) {
      const body = parseMaybeJson(res.text);
      const { detail } = describeErrorBody(body);
      throw new AuthenticationFailed(`login as '${username}' refused: ${res.status}${detail ? ` ${detail}` : ''}`, {
        status: res.status,
        body,
        method: 'POST',
        url: '/v2/login',
      });
    }
    const token = res.text.trim();
    if (!token || /\s/.test(token))
      throw new UnexpectedResponse(
        'POST /v2/login: expected the session token as the plain-text body',
        {
          status: res.status,
          method: 'POST',
          url: '/v2/login',
        },
        [{ path: '(body)', message: 'expected a non-empty token without spaces' }],
      );
    return token;
  }

  // ---- resources -----------------------------------------------------------------------------------------------

  readonly orders = {
    /** Runs an order: recipe and variation in a kitchen, with optional runtime overrides. */
    create: async (
      order: {
        kitchen: string;
        recipe: string;
        variation: string;
        parameters?: Record<string, unknown>;
        schedule?: string;
      },
      opts: CallOptions = {},
    ): Promise<OrderCreated> =>
      this.#call(OrderCreated, {
        method: 'PUT',
        surface: 'v2',
        path: `/v2/order/create/${seg(order.kitchen)}/${seg(order.recipe)}/${seg(order.variation)}`,
        json: { parameters: order.parameters ?? {}, schedule: order.schedule ?? 'now' },
        signal: opts.signal,
      }),
    /** The order runs ("servings") of an order. */
    runs: async (kitchen: string, orderId: string, opts: CallOptions = {}): Promise<OrderRun[]> =>
      (
        await this.#call(OrderRuns, {
          method: 'GET',
          surface: 'v2',
          path: `/v2/order/servings/${seg(kitchen)}/${seg(orderId)}`,
          signal: opts.signal,
        })
      ).servings,
    /** The status of one order run. */
    runStatus: async (kitchen: string, orderRunId: string, opts: CallOptions = {}): Promise<OrderRun> => {
      const res = await this.#call(OrderRuns, {
        method: 'POST',
        surface: 'v2',
        path: `/v2/order/details/${seg(kitchen)}`,
        json: { serving_hid: orderRunId, summary: true },
        signal: opts.signal,
      });
      const run = res.servings[0];
      if (!run)
        throw new UnexpectedResponse(
          `POST /v2/order/details/${kitchen}: servings is empty`,
          {
            method: 'POST',
            url: `/v2/order/details/${seg(kitchen)}`,
          },
          [{ path: 'servings', message: 'expected at least one order run' }],
        );
      return run;
    },
    stop: async (orderId: string, opts: CallOptions = {}): Promise<void> => {
      await this.#raw({ method: 'PUT', surface: 'v2', path: `/v2/order/stop/${seg(orderId)}`, signal: opts.signal });
    },
    stopRun: async (orderRunId: string, opts: CallOptions = {}): Promise<void> => {
      await this.#raw({
        method: 'PUT',
        surface: 'v2',
        path: `/v2/serving/stop/${seg(orderRunId)}`,
        signal: opts.signal,
      });
    },
  };

  readonly profilingRuns = {
    /** Submits a profiling run of a table group; returns at once with the job id (202). */
    submit: async (tableGroupId: string, opts: CallOptions = {}): Promise<JobSubmission> =>
      this.#call(JobSubmission, {
        method: 'POST',
        surface: 'api',
        path: `/api/v1/table-groups/${seg(tableGroupId)}/profiling-runs`,
        signal: opts.signal,
      }),
    summary: async (jobId: string, opts: CallOptions = {}): Promise<ProfilingSummary> =>
      this.#call(ProfilingSummary, {
        method: 'GET',
        surface: 'api',
        path: `/api/v1/profiling-runs/${seg(jobId)}`,
        signal: opts.signal,
      }),
  };

  readonly testRuns = {
    /** Submits a test run of a test suite; returns at once with the job id (202). */
    submit: async (testSuiteId: string, opts: CallOptions = {}): Promise<JobSubmission> =>
      this.#call(JobSubmission, {
        method: 'POST',
        surface: 'api',
        path: `/api/v1/test-suites/${seg(testSuiteId)}/test-runs`,
        signal: opts.signal,
      }),
    summary: async (jobId: string, opts: CallOptions = {}): Promise<TestRunSummary> =>
      this.#call(TestRunSummary, {
        method: 'GET',
        surface: 'api',
        path: `/api/v1/test-runs/${seg(jobId)}`,
        signal: opts.signal,
      }),
  };

  readonly jobs = {
    get: async (jobId: string, opts: CallOptions = {}): Promise<Job> =>
      this.#call(Job, {
        method: 'GET',
        surface: 'api',
        path: this.#paths.jobStatus.replace('{job_id}', seg(jobId)),
        signal: opts.signal,
      }),
    /** Requests cancellation. A job that is already terminal answers Conflict (409). */
    cancel: async (jobId: string, opts: CallOptions = {}): Promise<Job> =>
      this.#call(Job, {
        method: 'POST',
        surface: 'api',
        path: this.#paths.jobCancel.replace('{job_id}', seg(jobId)),
        signal: opts.signal,
      }),
    list: async (
      projectCode: string,
      query: { job_key?: string; status?: string; page?: number; limit?: number } = {},
      opts: CallOptions = {},
    ): Promise<JobList> =>
      this.#call(JobList, {
        method: 'GET',
        surface: 'api',
        path: this.#paths.jobList.replace('{project_code}', seg(projectCode)),
        searchParams: query,
        signal: opts.signal,
      }),
  };

  readonly testDefinitions = {
    export: async (testSuiteId: string, filters: ExportFilters = {}, opts: CallOptions = {}): Promise<ExportFile> => {
      const f = ExportFilters.parse(filters);
      return this.#call(ExportFile, {
        method: 'GET',
        surface: 'api',
        path: `/api/v1/test-suites/${seg(testSuiteId)}/test-definition-export`,
        searchParams: f,
        signal: opts.signal,
      });
    },
    /** Imports an export file. A strict rejection throws StrictImportRejected with the import result. */
    import: async (
      testSuiteId: string,
      config: ImportConfig,
      payload: ExportFileInput,
      opts: CallOptions = {},
    ): Promise<ImportResult> =>
      this.#call(ImportResult, {
        method: 'POST',
        surface: 'api',
        path: `/api/v1/test-suites/${seg(testSuiteId)}/test-definition-import`,
        json: { config: ImportConfig.parse(config), payload },
        signal: opts.signal,
      }),
  };

  /** `GET /api/v1/health` (no authentication). */
  async health(opts: CallOptions = {}): Promise<Health> {
    return this.#call(Health, {
      method: 'GET',
      surface: 'api',
      path: '/api/v1/health',
      anonymous: true,
      signal: opts.signal,
    });
  }

  /** `GET /v2/validatetoken`: whether the current session token is accepted. */
  async validateToken(opts: CallOptions = {}): Promise<boolean> {
    const res = await this.#send({
      method: 'GET',
      surface: 'v2',
      path: '/v2/validatetoken',
      signal: opts.signal,
      ok: () => true,
    });
    return res.status >= 200 && res.status < 300;
  }

  // ---- transport -----------------------------------------------------------------------------------------------

  async #call<T extends z.ZodType>(schema: T, req: Request): Promise<z.infer<T>> {
    const res = await this.#raw(req);
    return this.#parse(schema, res, req.method, req.path);
  }

  #parse<T extends z.ZodType>(schema: T, res: RawResponse, method: string, path: string): z.infer<T> {
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      throw new UnexpectedResponse(
        `${method} ${path}: the response body is not valid JSON`,
        {
          status: res.status,
          method,
          url: path,
          body: res.text.slice(0, 200),
        },
        [{ path: '(body)', message: 'expected JSON' }],
      );
    }
    const parsed = schema.safeParse(body);
    if (parsed.success) return parsed.data;
    const issues = parsed.error.issues.map((i) => ({
      path: i.path.map(String).join('.') || '(root)',
      message: i.message,
    }));
    const list = issues.map((i) => `'${i.path}': ${i.message}`).join('; ');
    throw new UnexpectedResponse(
      `${method} ${path}: response broke its schema at ${list}`,
      {
        status: res.status,
        method,
        url: path,
        body,
      },
      issues,
    );
  }

  /** Sends with authentication; maps error statuses to the error hierarchy. */
  async #raw(req: Request): Promise<RawResponse> {
    const res = await this.#send(req);
    if ((req.ok ?? isSuccess)(res.status)) return res;
    throw this.#errorFor(req, res);
  }

  /** Sends with the bearer of its surface; on a 401, gets a fresh token once and repeats the request once. */
  async #send(req: Request): Promise<RawResponse> {
    if (req.anonymous) return this.#transport(req.method, req.surface, req.path, req);
    let token = await this.#token(req.surface, false, req.signal);
    let res = await this.#transport(req.method, req.surface, req.path, { ...req, token });
    if (res.status === 401 && this.#canRefresh(req.surface)) {
      this.#invalidate(req.surface, token);
      token = await this.#token(req.surface, true, req.signal);
      res = await this.#transport(req.method, req.surface, req.path, { ...req, token });
    }
    return res;
  }

  #usesSession(surface: Surface): boolean {
    return surface === 'v2' || this.#bearer.type === 'session';
  }

  #canRefresh(surface: Surface): boolean {
    return this.#usesSession(surface) || this.#bearer.type !== 'static';
  }

  #invalidate(surface: Surface, token: string): void {
    if (this.#usesSession(surface)) this.session.invalidate(token);
  }

  async #token(surface: Surface, refresh: boolean, signal?: AbortSignal): Promise<string> {
    if (this.#usesSession(surface)) return this.session.token(signal);
    const b = this.#bearer;
    switch (b.type) {
      case 'static':
        return b.token;
      case 'file':
        try {
          return (await readFile(b.path, 'utf8')).trim();
        } catch (err) {
          throw new AuthenticationFailed(`cannot read the API token file ${b.path}: ${(err as Error).message}`, {
            method: 'GET',
            url: b.path,
            cause: err,
          });
        }
      case 'callback':
        return b.getToken({ signal, refresh });
      default:
        return this.session.token(signal);
    }
  }

  async #transport(
    method: Method,
    surface: Surface,
    path: string,
    opts: {
      token?: string;
      json?: unknown;
      form?: Record<string, string>;
      searchParams?: Record<string, string | number | undefined>;
      signal?: AbortSignal | undefined;
    },
  ): Promise<RawResponse> {
    const base = surface === 'v2' ? this.#base : this.#apiBase;
    const query = queryString(opts.searchParams);
    const shownPath = query ? `${path}?${query}` : path;
    const init: ServiceErrorInit = { method, url: shownPath };
    if (opts.signal?.aborted) throw new RequestAborted(`${method} ${shownPath} aborted before it was sent`, init);
    const started = performance.now();
    try {
      const res = await this.#got(`${base}${path}`, {
        method,
        ...(query ? { searchParams: query } : {}),
        headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
        ...(opts.json !== undefined ? { json: opts.json } : {}),
        ...(opts.form ? { form: opts.form } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      this.#onResponse?.({ method, path: shownPath, status: res.statusCode, durationMs: performance.now() - started });
      return { status: res.statusCode, text: res.body, headers: res.headers };
    } catch (err) {
      this.#onResponse?.({ method, path: shownPath, status: null, durationMs: performance.now() - started });
      if (opts.signal?.aborted)
        throw new RequestAborted(`${method} ${shownPath} aborted in flight`, { ...init, cause: err });
      if (err instanceof TimeoutError)
        throw new RequestTimedOut(`${method} ${shownPath} timed out (${err.timings?.phases.total ?? '?'} ms)`, {
          ...init,
          code: err.code,
          cause: err,
        });
      if (err instanceof RequestError)
        throw new ConnectionFailed(`${method} ${shownPath} failed without a response: ${err.code}`, {
          ...init,
          code: err.code,
          cause: err,
        });
      throw err;
    }
  }

  #errorFor(req: Request, res: RawResponse): ServiceError {
    const body = parseMaybeJson(res.text);
    const { code, detail } = describeErrorBody(body);
    const query = queryString(req.searchParams);
    const url = query ? `${req.path}?${query}` : req.path;
    const init: ServiceErrorInit = { status: res.status, code, body, method: req.method, url };
    const message = `${req.method} ${url} answered ${res.status}${code ? ` ${code}` : ''}${detail ? `: ${detail}` : ''}`;
    const s = res.status;
    if (s === 400) {
      const importResult = strictImportResult(body);
      if (importResult !== undefined) return new StrictImportRejected(message, init, importResult);
      return new InvalidRequest(message, init);
    }
    if (s === 401) return new AuthenticationFailed(message, init);
    if (s === 403) return new PermissionDenied(message, init);
    if (s === 404) return new NotFound(message, init);
    if (s === 408) return new RequestTimedOut(message, init);
    if (s === 409) return new Conflict(message, init);
    if (s === 429) {
      const header = res.headers['retry-after'];
      return new RateLimited(message, init, parseRetryAfter(Array.isArray(header) ? header[0] : header));
    }
    if (s >= 500) return new ServerError(message, init);
    if (s >= 400) return new InvalidRequest(message, init);
    return new UnexpectedResponse(message, init, [{ path: '(status)', message: `unexpected status ${s}` }]);
  }
}

const isSuccess = (status: number) => status >= 200 && status < 300;

function queryString(params: Record<string, string | number | undefined> | undefined): string {
  const entries = Object.entries(params ?? {}).flatMap(([k, v]): [string, string][] =>
    v === undefined ? [] : [[k, String(v)]],
  );
  return new URLSearchParams(entries).toString();
}

function parseMaybeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 500);
  }
}
