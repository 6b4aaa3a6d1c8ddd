/**
 * The service client: composes the transport, the session and the bearer sources, and the domain resources.
 * Plain TypeScript (no Temporal), got for HTTP, zod for every response. No hidden retries unless asked for.
 */
import type { z } from 'zod';
import { BearerSource, type Surface } from './bearer.js';
import {
  AuthenticationFailed,
  GarbledResponse,
  UnexpectedResponse,
  describeErrorBody,
  errorForResponse,
  parseMaybeJson,
} from './errors.js';
import { DEFAULT_PATHS, checkOptions, type ServiceClientOptions, type ServicePaths } from './options.js';
import {
  jobsResource,
  ordersResource,
  profilingRunsResource,
  testDefinitionsResource,
  tableGroupsResource,
  connectionsResource,
  testGenerationResource,
  testRunsResource,
  type ApiRequest,
  type CallOptions,
  type Caller,
} from './resources.js';
import { parseBody } from './response.js';
import { Health, UserInfo } from './schemas.js';
import { SessionManager } from './session.js';
import { Transport, queryString, type RawResponse, type SendOptions } from './transport.js';

const isSuccess = (status: number) => status >= 200 && status < 300;

export class ServiceClient {
  readonly session: SessionManager;
  readonly #credentials: { username: string; password: string } | undefined;
  readonly #bearer: BearerSource;
  readonly #base: string;
  readonly #apiBase: string;
  readonly #transport: Transport;

  readonly orders;
  readonly profilingRuns;
  readonly testRuns;
  readonly testGeneration;
  readonly tableGroups;
  readonly connections;
  readonly jobs;
  readonly testDefinitions;

  constructor(options: ServiceClientOptions) {
    checkOptions(options);
    this.#credentials = options.credentials;
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#apiBase = (options.apiBaseUrl ?? options.baseUrl).replace(/\/+$/, '');
    this.#transport = new Transport({
      timeoutMs: options.timeoutMs ?? 30_000,
      keepAlive: options.keepAlive ?? true,
      maxSockets: options.maxSockets ?? 64,
      retryLimit: options.retry?.limit ?? 0,
      onResponse: options.onResponse,
    });
    this.session = new SessionManager({
      login: () => this.#loginRequest(),
      lifetimeMs: options.tokenLifetimeMs,
      refreshMarginMs: options.refreshMarginMs,
      now: options.now,
    });
    this.#bearer = new BearerSource(this.session, options.apiBearer ?? { type: 'session' }, this.#transport);
    const paths: ServicePaths = { ...DEFAULT_PATHS, ...options.paths };
    const caller: Caller = {
      call: (schema, req) => this.#call(schema, req),
      raw: (req) => this.#raw(req),
      paths,
    };
    this.orders = ordersResource(caller);
    this.profilingRuns = profilingRunsResource(caller);
    this.testRuns = testRunsResource(caller);
    this.testGeneration = testGenerationResource(caller);
    this.tableGroups = tableGroupsResource(caller);
    this.connections = connectionsResource(caller);
    this.jobs = jobsResource(caller);
    this.testDefinitions = testDefinitionsResource(caller);
  }

  /** Closes the keep-alive sockets. */
  close(): void {
    this.#transport.close();
  }

  toJSON(): Record<string, unknown> {
    return { baseUrl: this.#base, apiBaseUrl: this.#apiBase, username: this.#credentials?.username ?? null };
  }

  /** The OAuth token source when the `/api/v1` bearer is a refresh grant (for metrics and tests). */
  get oauthTokenSource() {
    return this.#bearer.oauth;
  }

  /** The service's base address, without a trailing slash (the UI's order-run pages hang off it). */
  get baseUrl(): string {
    return this.#base;
  }

  /** The base address of the `/api/v1` calls (jobs, test definitions), without a trailing slash. */
  get apiBaseUrl(): string {
    return this.#apiBase;
  }

  /** `GET /v2/userinfo`: who the session is, as the UI addresses its account (`customer_git_name`). */
  async userInfo(opts: CallOptions = {}): Promise<UserInfo> {
    return this.#call(UserInfo, { method: 'GET', surface: 'v2', path: '/v2/userinfo', signal: opts.signal });
  }

  /** The configured user name (not a secret), if any. */
  get username(): string | undefined {
    return this.#credentials?.username;
  }

  /** Logs in now (checking the credentials); returns who and until when, never the token. */
  async login(opts: CallOptions = {}): Promise<{ username: string; expiresAt: string | null }> {
    await this.session.refresh(opts.signal);
    return { username: this.#credentials?.username ?? '', expiresAt: this.session.info().expiresAt };
  }

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
    return isSuccess(res.status);
  }

  /** One login. Only a credentials answer (400, 401, 403) fails as AuthenticationFailed; an outage stays retryable. */
  async #loginRequest(): Promise<string> {
    const where = { method: 'POST', url: '/v2/login', auth: true };
    if (!this.#credentials) throw new AuthenticationFailed('no credentials configured for POST /v2/login', where);
    const { username, password } = this.#credentials;
    const res = await this.#transmit('v2', 'POST', '/v2/login', { form: { username, password }, auth: true });
    if (!isSuccess(res.status) && ![400, 401, 403].includes(res.status))
      throw errorForResponse('POST', '/v2/login', res, { auth: true }); // 429, 5xx: the service, not the credentials
    if (!isSuccess(res.status)) {
      const body = parseMaybeJson(res.text);
      const { detail } = describeErrorBody(body);
      throw new AuthenticationFailed(`login as '${username}' refused: ${res.status}${detail ? ` ${detail}` : ''}`, {
        status: res.status,
        body,
        ...where,
      });
    }
    const token = res.text.trim();
    // A JSON object or array is another contract (not a blip); anything else that is no token was cut off or mangled
    // on the way (transient).
    if (/^[[{]/.test(token) && isJson(token))
      throw new UnexpectedResponse(
        'POST /v2/login: expected the session token as the plain-text body, got JSON',
        { status: res.status, ...where },
        [{ path: '(body)', message: 'expected a non-empty token without spaces' }],
      );
    if (!token || /\s/.test(token) || /^[[{]/.test(token))
      throw new GarbledResponse('POST /v2/login: the answer is not a session token', { status: res.status, ...where });
    return token;
  }

  async #call<T extends z.ZodType>(schema: T, req: ApiRequest): Promise<z.infer<T>> {
    return parseBody(schema, await this.#raw(req), req.method, req.path);
  }

  /**
   * Sends with authentication; maps error statuses to the error hierarchy. A 401 to a token granted for this call
   * (`refreshed`) is FreshTokenRefused, retryable: the grant that made it works.
   */
  async #raw(req: ApiRequest): Promise<RawResponse> {
    const res = await this.#send(req);
    if ((req.ok ?? isSuccess)(res.status)) return res;
    const query = queryString(req.searchParams);
    const url = query ? `${req.path}?${query}` : req.path;
    throw errorForResponse(req.method, url, res, { refreshed: res.refreshed });
  }

  /** Sends with the bearer of its surface; on a 401, gets a fresh token once and repeats the request once. */
  async #send(req: ApiRequest): Promise<RawResponse & { refreshed?: true }> {
    if (req.anonymous) return this.#transmit(req.surface, req.method, req.path, req);
    const token = await this.#bearer.token(req.surface, false, req.signal);
    const res = await this.#transmit(req.surface, req.method, req.path, { ...req, token });
    if (res.status !== 401 || !this.#bearer.canRefresh(req.surface)) return res;
    this.#bearer.invalidate(req.surface, token);
    const fresh = await this.#bearer.token(req.surface, true, req.signal);
    return { ...(await this.#transmit(req.surface, req.method, req.path, { ...req, token: fresh })), refreshed: true };
  }

  #transmit(surface: Surface, method: ApiRequest['method'], path: string, opts: SendOptions): Promise<RawResponse> {
    return this.#transport.send(method, surface === 'v2' ? this.#base : this.#apiBase, path, opts);
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
