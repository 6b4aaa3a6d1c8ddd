/** Raw HTTP access to an in-process simulator, for tests of the simulator itself (through real sockets). */
import { ServiceClient, type ServiceClientOptions } from '../../src/api/index.js';
import { SEED_USERS, startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/index.js';
import { deploymentOf, orderSubmitterId, submitterId } from '../../src/exactly-once/messages.js';
import type { JobKind } from '../../src/contract/job-kinds.js';

export interface HttpResult<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export type UserKey = keyof typeof SEED_USERS;

export class SimHttp {
  private tokens = new Map<string, string>();
  constructor(readonly sim: RunningSimulator) {}

  async request<T = any>(
    method: string,
    path: string,
    opts: {
      token?: string | null;
      json?: unknown;
      form?: Record<string, string>;
      raw?: string;
      contentType?: string;
      headers?: Record<string, string>;
    } = {},
  ): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    } else if (opts.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(opts.form).toString();
    } else if (opts.raw !== undefined) {
      headers['content-type'] = opts.contentType ?? 'application/json';
      body = opts.raw;
    }
    const res = await fetch(`${this.sim.url}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* plain text */
    }
    return { status: res.status, body: parsed as T, text, headers: res.headers };
  }

  async login(user: UserKey = 'admin'): Promise<string> {
    const res = await this.request('POST', '/v2/login', { form: { ...SEED_USERS[user] } });
    if (res.status !== 200) throw new Error(`login of ${user} failed: ${res.status} ${res.text}`);
    return res.text;
  }

  /** A cached token per user. */
  async token(user: UserKey = 'admin'): Promise<string> {
    let t = this.tokens.get(user);
    if (!t) {
      t = await this.login(user);
      this.tokens.set(user, t);
    }
    return t;
  }

  async as<T = any>(user: UserKey, method: string, path: string, json?: unknown): Promise<HttpResult<T>> {
    return this.request<T>(method, path, { token: await this.token(user), json });
  }
}

/** Starts a simulator with controls on, for one test file. */
export async function startTestSimulator(
  options: SimulatorOptions = {},
): Promise<{ sim: RunningSimulator; http: SimHttp }> {
  const sim = await startSimulator({ controls: true, ...options });
  return { sim, http: new SimHttp(sim) };
}

/**
 * How long a `delay` fault holds a request that its test releases once what it waits for is seen: a bound that only
 * unsticks a test failing anyway. A client that must wait the hold out takes HELD_CLIENT_TIMEOUT_MS.
 */
export const HOLD_AT_MOST_MS = 100_000;
export const HELD_CLIENT_TIMEOUT_MS = 2 * HOLD_AT_MOST_MS;

/** How many requests a fault added with `addFault` has answered so far. */
export const faultHits = (sim: RunningSimulator, fault: { id: string }): number =>
  sim.controls.faults().find((f) => f.id === fault.id)?.hits ?? 0;

/** An order in the seed's production kitchen whose workflow waits for its run, polling every 0.2 s. */
export const WAITED_ORDER = {
  kitchen: 'production',
  recipe: 'load-warehouse',
  variation: 'daily',
  wait: true,
  pollIntervalMs: 200,
};

/** Durations long enough that nothing moves unless the test advances the clock. */
export const FROZEN = { pendingMs: 60_000, claimMs: 60_000, runMs: 600_000, cancelMs: 30_000, interruptMs: 30_000 };

/** A ServiceClient for the seed user `user` against a running simulator. */
export async function clientFor(
  sim: RunningSimulator,
  user: UserKey = 'admin',
  options: Partial<ServiceClientOptions> = {},
): Promise<ServiceClient> {
  return new ServiceClient({ baseUrl: sim.url, credentials: { ...SEED_USERS[user] }, timeoutMs: 5_000, ...options });
}

/**
 * The id of the submitter that a worker on `taskQueue`, writing to the service at `baseUrl` (the simulator's url, or
 * the proxy's in front of it), sends `kind` jobs on `target` through (src/exactly-once/messages.ts).
 */
export const submitterAt = (baseUrl: string, taskQueue: string, kind: JobKind, target: string): string =>
  submitterId(taskQueue, deploymentOf(baseUrl), kind, target);

/** The id of the submitter of an order's kitchen, recipe and variation, as submitterAt. */
export const orderSubmitterAt = (
  baseUrl: string,
  taskQueue: string,
  order: { kitchen: string; recipe: string; variation: string },
): string => orderSubmitterId(taskQueue, deploymentOf(baseUrl), order);
