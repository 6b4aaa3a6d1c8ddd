/**
 * The HTTP transport: got with keep-alive agents and no hidden retries, one response event per request, and the
 * network failures (abort, timeout, no answer) mapped to the error hierarchy. It knows nothing of endpoints.
 */
import http from 'node:http';
import https from 'node:https';
import got, { RequestError, TimeoutError, type Got, type Method } from 'got';
import { ConnectionFailed, NotSentInTime, RequestAborted, RequestTimedOut, type ServiceErrorInit } from './errors.js';
import type { ResponseEvent } from './options.js';
import { awaitRequest } from './request-scope.js';

export interface RawResponse {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface SendOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** A whole `Authorization` header (e.g. Basic), when not a bearer. */
  authorization?: string;
  json?: unknown;
  form?: Record<string, string>;
  searchParams?: Record<string, string | number | undefined>;
  signal?: AbortSignal | undefined;
  /** The request gets a token (login, OAuth refresh): its failures are marked `auth`. */
  auth?: boolean;
  /** Sent as `X-Request-Id`: the write's own id, so the service's logs name the workflow request behind it. */
  requestId?: string | undefined;
  /** A write's latest time to leave (epoch ms): later, it is not sent (NotSentInTime), so it certainly changed nothing. */
  leaveBy?: number | undefined;
}

export class Transport {
  readonly #got: Got;
  readonly #agents: { http: http.Agent; https: https.Agent };
  readonly #onResponse: ((e: ResponseEvent) => void) | undefined;

  constructor(o: {
    timeoutMs: number;
    keepAlive: boolean;
    maxSockets: number;
    retryLimit: number;
    onResponse?: ((e: ResponseEvent) => void) | undefined;
  }) {
    this.#onResponse = o.onResponse;
    this.#agents = {
      http: new http.Agent({ keepAlive: o.keepAlive, maxSockets: o.maxSockets }),
      https: new https.Agent({ keepAlive: o.keepAlive, maxSockets: o.maxSockets }),
    };
    this.#got = got.extend({
      timeout: { request: o.timeoutMs },
      throwHttpErrors: false,
      responseType: 'text',
      agent: this.#agents,
      headers: { 'user-agent': 'dataops-temporal' },
      retry: {
        limit: o.retryLimit,
        // Never PUT: order creation is a PUT and is not idempotent.
        methods: ['GET', 'HEAD', 'DELETE', 'OPTIONS'],
        statusCodes: [408, 429, 500, 502, 503, 504],
      },
    });
  }

  /** Closes the keep-alive sockets. */
  close(): void {
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }

  /** Sends one request to `base + path`. Any status is an answer; only the absence of one throws. */
  async send(method: Method, base: string, path: string, opts: SendOptions): Promise<RawResponse> {
    const query = queryString(opts.searchParams);
    const shownPath = query ? `${path}?${query}` : path;
    const init: ServiceErrorInit = { method, url: shownPath, ...(opts.auth ? { auth: true } : {}) };
    if (opts.signal?.aborted) throw new RequestAborted(`${method} ${shownPath} aborted before it was sent`, init);
    const late = opts.leaveBy === undefined ? 0 : Date.now() - opts.leaveBy;
    if (late > 0) throw new NotSentInTime(`${method} ${shownPath} not sent: ${late} ms past its time to leave`, init);
    const started = performance.now();
    try {
      const res = await awaitRequest(
        this.#got(`${base}${path}`, {
          method,
          ...(query ? { searchParams: query } : {}),
          headers: {
            ...(opts.token
              ? { authorization: `Bearer ${opts.token}` }
              : opts.authorization
                ? { authorization: opts.authorization }
                : {}),
            ...(opts.requestId ? { 'x-request-id': opts.requestId } : {}),
          },
          ...(opts.json !== undefined ? { json: opts.json } : {}),
          ...(opts.form ? { form: opts.form } : {}),
          ...(opts.signal ? { signal: opts.signal } : {}),
        }),
      );
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
}

/** The query string of defined parameters, in order. */
export function queryString(params: Record<string, string | number | undefined> | undefined): string {
  const entries = Object.entries(params ?? {}).flatMap(([k, v]): [string, string][] =>
    v === undefined ? [] : [[k, String(v)]],
  );
  return new URLSearchParams(entries).toString();
}
