/**
 * Errors the simulator answers with, in the envelopes deployed versions use:
 * `{"detail": {"errors": [{"code", "detail"}]}}` for API errors, `{"detail": "..."}` on 401,
 * `{"detail": [{loc, msg, type}]}` on 422, and `{"message": "..."}` for order failures (417).
 */
import type { z } from 'zod';

export type ValidationIssue = { loc: (string | number)[]; msg: string; type: string };

export class SimError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === 'string' ? body : JSON.stringify(body));
  }
}

export function apiError(status: number, code: string, detail: string, extra: Record<string, unknown> = {}): SimError {
  return new SimError(status, { detail: { errors: [{ code, detail }], ...extra } });
}

export function notFound(what: string): SimError {
  return apiError(404, 'not_found', `${what} not found`);
}

export function forbidden(detail: string): SimError {
  return apiError(403, 'forbidden', detail);
}

export function unprocessable(issues: ValidationIssue[]): SimError {
  return new SimError(422, { detail: issues });
}

/** A 422 for a zod validation failure: one `{loc, msg, type}` per issue, `loc` starting with `where`. */
export function invalid(error: z.ZodError, where: 'body' | 'query' | 'path'): SimError {
  return unprocessable(
    error.issues.map((i) => ({
      loc: [where, ...i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
      msg: i.message,
      type: i.code === 'invalid_type' && /received undefined/.test(i.message) ? 'missing' : i.code,
    })),
  );
}

export function unauthorized(detail: 'Not authenticated' | 'Invalid or expired token'): SimError {
  return new SimError(401, { detail }, { 'www-authenticate': 'Bearer' });
}

export function orderFailure(message: string): SimError {
  return new SimError(417, { status: 'error', message });
}
