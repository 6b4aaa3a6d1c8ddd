/**
 * Reading a successful answer: the body must be JSON (else GarbledResponse, retryable) and match its zod schema.
 * Unknown fields pass through; a real break becomes UnexpectedResponse (not retryable) naming each field path.
 */
import type { z } from 'zod';
import { GarbledResponse, UnexpectedResponse } from './errors.js';
import type { RawResponse } from './transport.js';

export function parseBody<T extends z.ZodType>(schema: T, res: RawResponse, method: string, path: string): z.infer<T> {
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    // Not JSON at all: cut off or replaced on the way (a proxy's HTML page). Transient, unlike a schema break.
    throw new GarbledResponse(`${method} ${path}: the response body is not valid JSON`, {
      status: res.status,
      method,
      url: path,
      body: res.text.slice(0, 200),
    });
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
    { status: res.status, method, url: path, body },
    issues,
  );
}
