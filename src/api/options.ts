/**
 * The client's options: what can be set, each with its default, and the check that runs in the constructor.
 */
import { z } from 'zod';
import type { ApiBearer } from './bearer.js';
import { InvalidClientOptions } from './errors.js';

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

/** Throws InvalidClientOptions listing every problem; never echoes a credential. */
export function checkOptions(options: ServiceClientOptions): void {
  const problems: string[] = [];
  const checked = OptionsSchema.safeParse(options);
  if (!checked.success) problems.push(...checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  const bearer = options.apiBearer;
  if (bearer?.type === 'static' && !bearer.token) problems.push('apiBearer.token: empty');
  if (bearer?.type === 'file' && !bearer.path) problems.push('apiBearer.path: empty');
  if (bearer?.type === 'oauth') {
    if (!/^https?:\/\//.test(bearer.tokenUrl)) problems.push('apiBearer.tokenUrl: expected an http(s) URL');
    if (!bearer.clientId) problems.push('apiBearer.clientId: empty');
    if (!bearer.refreshToken) problems.push('apiBearer.refreshToken: empty');
  }
  if (problems.length)
    throw new InvalidClientOptions(`invalid ServiceClient options:\n${problems.map((p) => `  ${p}`).join('\n')}`);
}
