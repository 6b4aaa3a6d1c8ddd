/**
 * One error hierarchy for every call, and the mapping from a response's status and body to its class. The class names are a contract: activities turn them into Temporal failures
 * whose `type` is the name, and callers match on it. No error ever carries a token or a password.
 */

export interface ServiceErrorInit {
  status?: number | undefined;
  code?: string | undefined;
  body?: unknown;
  method: string;
  /** Path and query of the request; never credentials. */
  url: string;
  cause?: unknown;
  /** The failure came from getting a token (login, OAuth refresh), before the call itself was sent. */
  auth?: boolean;
}

/** Thrown when the service answers with an error status; the base of every HTTP error. */
export class ServiceError extends Error {
  override readonly name: string = 'ServiceError';
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly body: unknown;
  readonly method: string;
  readonly url: string;
  /** True when it failed while getting a token: the call itself was never sent, so it changed nothing. */
  readonly auth: boolean;

  constructor(message: string, init: ServiceErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.body = init.body;
    this.method = init.method;
    this.url = init.url;
    this.auth = init.auth ?? false;
  }

  /** Whether retrying the same call may succeed. */
  get retryable(): boolean {
    return false;
  }
}

/** Thrown when the service answers 401, or a login is refused (invalid credentials or token). */
export class AuthenticationFailed extends ServiceError {
  override readonly name = 'AuthenticationFailed';
}

/**
 * Thrown when the service answers 401 to a token granted for this very call, after it refused the one before: the
 * grant works, so the credentials are alive (dead ones fail at the grant, as AuthenticationFailed). The token expired
 * on its way, or a revocation raced the grant; retried like an outage, and never sent anything.
 */
export class FreshTokenRefused extends ServiceError {
  override readonly name = 'FreshTokenRefused';
  override get retryable(): boolean {
    return true;
  }
}

/** Thrown when the service answers 403: the user's role or kitchen access does not allow the call. */
export class PermissionDenied extends ServiceError {
  override readonly name = 'PermissionDenied';
}

/** Thrown when the service answers 404: missing, or outside the user's projects (deployments do not tell apart). */
export class NotFound extends ServiceError {
  override readonly name = 'NotFound';
}

/** Thrown when the service answers 409, for example cancelling a job that is already terminal. */
export class Conflict extends ServiceError {
  override readonly name = 'Conflict';
}

/** Thrown when the service rejects the request as malformed or invalid (400, 413, 415, 417, 422 and other 4xx). */
export class InvalidRequest extends ServiceError {
  override readonly name = 'InvalidRequest';
}

/** Thrown when an `apply_strict` import is rejected because some definitions would be skipped; nothing was applied. */
export class StrictImportRejected extends ServiceError {
  override readonly name = 'StrictImportRejected';
  constructor(
    message: string,
    init: ServiceErrorInit,
    /** The full import result the service returned: what would have happened. */
    readonly importResult: unknown,
  ) {
    super(message, init);
  }
}

/** Thrown when the service answers 429; `retryAfterMs` comes from `Retry-After` (seconds or an HTTP date). */
export class RateLimited extends ServiceError {
  override readonly name = 'RateLimited';
  constructor(
    message: string,
    init: ServiceErrorInit,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message, init);
  }
  override get retryable(): boolean {
    return true;
  }
}

/** Thrown when the service answers 5xx. */
export class ServerError extends ServiceError {
  override readonly name = 'ServerError';
  override get retryable(): boolean {
    return true;
  }
}

/** Thrown when no answer came: connection refused or reset, DNS failure, or the socket closed mid-response. */
export class ConnectionFailed extends ServiceError {
  override readonly name = 'ConnectionFailed';
  override get retryable(): boolean {
    return true;
  }
}

/** Thrown when the request took longer than its timeout (or the service answered 408). */
export class RequestTimedOut extends ServiceError {
  override readonly name = 'RequestTimedOut';
  override get retryable(): boolean {
    return true;
  }
}

/**
 * Thrown, unsent, by a write that could not leave by its time (`leaveBy`): its worker stalled after recording the send.
 * It certainly changed nothing; retryable.
 */
export class NotSentInTime extends ServiceError {
  override readonly name = 'NotSentInTime';
  override get retryable(): boolean {
    return true;
  }
}

/** Thrown when the caller's AbortSignal aborted the request in flight. */
export class RequestAborted extends ServiceError {
  override readonly name = 'RequestAborted';
}

/**
 * Thrown when a success answer's body is not JSON at all (cut off, an HTML page from a proxy): a transport accident,
 * so retryable. For a request that changes something it is ambiguous: the change may have happened.
 */
export class GarbledResponse extends ServiceError {
  override readonly name = 'GarbledResponse';
  override get retryable(): boolean {
    return true;
  }
}

/**
 * Thrown when a response body is valid JSON that breaks its schema; `issues` name each field path and what was
 * expected. The deployment answers something else than we understand, so retrying cannot help.
 */
export class UnexpectedResponse extends ServiceError {
  override readonly name = 'UnexpectedResponse';
  constructor(
    message: string,
    init: ServiceErrorInit,
    readonly issues: { path: string; message: string }[],
  ) {
    super(message, init);
  }
}

/** Thrown when client options are invalid; the message lists every problem. */
export class InvalidClientOptions extends Error {
  override readonly name = 'InvalidClientOptions';
}

/** Parses `Retry-After`: delay seconds or an HTTP date. Undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The error code and a human detail from any of the service's error envelopes. */
export function describeErrorBody(body: unknown): { code?: string; detail?: string } {
  if (typeof body !== 'object' || body === null) return typeof body === 'string' && body ? { detail: body } : {};
  const b = body as Record<string, unknown>;
  const fromErrors = (errors: unknown) => {
    const first = Array.isArray(errors) ? (errors[0] as Record<string, unknown> | undefined) : undefined;
    if (!first) return undefined;
    const detail = first.detail ?? first.message;
    return {
      code: typeof first.code === 'string' ? first.code : undefined,
      detail: typeof detail === 'string' ? detail : undefined,
    };
  };
  if (typeof b.detail === 'string') return { detail: b.detail };
  if (Array.isArray(b.detail)) {
    // 422: a list of {loc, msg, type}
    const parts = (b.detail as Record<string, unknown>[]).map(
      (d) => `${Array.isArray(d.loc) ? d.loc.join('.') : '?'}: ${String(d.msg)}`,
    );
    return { code: 'validation_error', detail: parts.join('; ') };
  }
  if (typeof b.detail === 'object' && b.detail !== null) {
    const found = fromErrors((b.detail as Record<string, unknown>).errors);
    if (found) return found;
  }
  const top = fromErrors(b.errors);
  if (top) return top;
  if (typeof b.message === 'string') return { detail: b.message };
  return {};
}

/** The strict-import rejection's `import_result`, nested under `detail` (deployed) or at the top level (spec). */
export function strictImportResult(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  const holder = typeof b.detail === 'object' && b.detail !== null && !Array.isArray(b.detail) ? b.detail : b;
  const h = holder as Record<string, unknown>;
  const errors = Array.isArray(h.errors) ? (h.errors as Record<string, unknown>[]) : [];
  if (!errors.some((e) => e.code === 'strict_validation_failed')) return undefined;
  return h.import_result ?? null;
}

/** A response as the mapping needs it. */
export interface ErrorResponse {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * The error for a non-success answer to `method url`, chosen by status (and, for a 400, by the body). `refreshed`: the
 * request carried a token granted for it, after the one before was refused; a 401 to it is FreshTokenRefused.
 */
export function errorForResponse(
  method: string,
  url: string,
  res: ErrorResponse,
  extra: Pick<ServiceErrorInit, 'auth'> & { refreshed?: boolean | undefined } = {},
): ServiceError {
  const { refreshed, ...more } = extra;
  const body = parseMaybeJson(res.text);
  const { code, detail } = describeErrorBody(body);
  const init: ServiceErrorInit = { status: res.status, code, body, method, url, ...more };
  const message = `${method} ${url} answered ${res.status}${code ? ` ${code}` : ''}${detail ? `: ${detail}` : ''}`;
  const s = res.status;
  if (s === 400) {
    const importResult = strictImportResult(body);
    if (importResult !== undefined) return new StrictImportRejected(message, init, importResult);
    return new InvalidRequest(message, init);
  }
  if (s === 401 && refreshed) return new FreshTokenRefused(`${message} (to a token granted for this call)`, init);
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

/** The body as JSON when it is JSON, else its first 500 characters. */
export function parseMaybeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 500);
  }
}
