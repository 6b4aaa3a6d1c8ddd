/** The simulator's whole state: plain JSON, so it can be kept in a file and survive a restart. */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Outcome, OverrideKind, Seed } from './seed.js';

export interface JobDurations {
  /** Time in `pending` before the scheduler claims the job. @default 1500 */
  pendingMs: number;
  /** Time in `claimed` before the run starts. @default 300 */
  claimMs: number;
  /** Running time of the whole job (kept across interrupts). @default 3000 */
  runMs: number;
  /** Time from `cancel_requested` to `canceled`. @default 400 */
  cancelMs: number;
  /** Time from `interrupt_requested` to `interrupted`. @default 400 */
  interruptMs: number;
}

export const DEFAULT_JOB_DURATIONS: JobDurations = {
  pendingMs: 1500,
  claimMs: 300,
  runMs: 3000,
  cancelMs: 400,
  interruptMs: 400,
};

export interface OrderDurations {
  /** Time an order run stays PLANNED_SERVING. @default 300 */
  plannedMs: number;
  /** Time an order run stays ACTIVE_SERVING. @default 2000 */
  runMs: number;
}

export const DEFAULT_ORDER_DURATIONS: OrderDurations = { plannedMs: 300, runMs: 2000 };

export type JobKey = 'run-profile' | 'run-tests' | 'run-test-generation';

export interface ProfilingResult {
  score: number;
  table_ct: number;
  column_ct: number;
  record_ct: number;
  issue_counts: {
    hygiene_issues: { definite: number; likely: number; possible: number };
    potential_pii: { high: number; moderate: number };
    dismissed: number;
  };
}

export type ResultCounts = Record<Outcome, number>;
export interface TestRunResult {
  score: number;
  result_counts: ResultCounts;
}

export interface JobRecord {
  id: string;
  job_key: JobKey;
  source: string;
  project_code: string;
  table_group_id: string;
  test_suite_id: string | null;
  status: string;
  created_at: number;
  claimed_at: number | null;
  started_at: number | null;
  completed_at: number | null;
  error_message: string | null;
  created_by: string | null;
  /** Internal (the explorer's oracle, never served by the API): the `X-Request-Id` of the request that created it. */
  request_id?: string | null;
  /** A test run's link back to its caller, echoed in its summary (TestGen 5.134). */
  external_url?: string | null;
  caller_metadata?: Record<string, unknown> | null;
  /** Internal: when the current phase began (simulator clock). */
  phase_started_at: number;
  /** Internal: running time still owed; kept across an interrupt. */
  run_remaining_ms: number;
  durations: JobDurations;
  /** Internal: the job ends in `error` with this message when its run finishes. */
  fail_with: string | null;
  claims: number;
  interrupts: number;
  result: ProfilingResult | TestRunResult | null;
}

export interface ServingRecord {
  hid: string;
  order_id: string;
  kitchen: string;
  status: string;
  created_at: number;
  phase_started_at: number;
  started_at: number | null;
  completed_at: number | null;
  fails: boolean;
  durations: OrderDurations;
}

export interface OrderRecord {
  id: string;
  kitchen: string;
  recipe: string;
  variation: string;
  parameters: Record<string, unknown>;
  overrides_by_kind: Partial<Record<OverrideKind, Record<string, unknown>>>;
  schedule: unknown;
  created_at: number;
  created_by: string;
  /** Internal (the explorer's oracle, never served by the API): the `X-Request-Id` of the request that created it. */
  request_id?: string | null;
  serving_ids: string[];
}

export interface TokenRecord {
  username: string;
  issued_at: number;
  expires_at: number;
  revoked: boolean;
  /** `session` from /v2/login; `api` when issued separately for /api/v1 (deployed variant). */
  kind: 'session' | 'api';
}

/**
 * An OAuth refresh token, as TestGen 5.134 keeps it: a confidential client's is reused until it expires; a public
 * client's is replaced at each refresh, within a chain whose lifetime the replacements do not extend.
 */
export interface RefreshTokenRecord {
  username: string;
  client_id: string;
  /** The chain's end: set when its first token was issued, kept by every replacement. */
  expires_at: number;
  revoked: boolean;
  /** When it was revoked or replaced: a replaced token presented again within a minute is only refused. */
  revoked_at?: number;
  /** The first token of its chain. @default itself */
  chain?: string;
  /** The access token issued with it, which a refresh with it revokes. */
  access_token?: string;
}

/** A test definition as stored: export fields plus internal ones (`id`, `test_suite_id`, `schema_name`). */
export type DefinitionRecord = Record<string, unknown> & {
  id: string;
  test_suite_id: string;
  schema_name: string;
  test_type: string;
  table_name: string;
  column_name: string;
};

export interface JobPlan {
  id: string;
  job_key?: JobKey;
  target_id?: string;
  fail_with?: string;
  durations?: Partial<JobDurations>;
  remaining: number;
}

export interface SimStateData {
  version: 1;
  clock_offset_ms: number;
  job_durations: JobDurations;
  order_durations: OrderDurations;
  tokens: Record<string, TokenRecord>;
  refresh_tokens: Record<string, RefreshTokenRecord>;
  /** OAuth clients by id; a confidential one has a secret. */
  oauth_clients: Record<string, { client_secret?: string }>;
  jobs: Record<string, JobRecord>;
  job_order: string[];
  orders: Record<string, OrderRecord>;
  servings: Record<string, ServingRecord>;
  definitions: Record<string, DefinitionRecord[]>;
  job_plans: JobPlan[];
  counters: { logins: number; failed_logins: number; cancels: Record<string, number> };
}

export function initialState(seed: Seed, jobDurations: JobDurations, orderDurations: OrderDurations): SimStateData {
  const groups = new Map(seed.table_groups.map((g) => [g.id, g]));
  const definitions: Record<string, DefinitionRecord[]> = {};
  for (const suite of seed.test_suites) {
    const schema = groups.get(suite.table_group_id)?.schema_name ?? '';
    definitions[suite.id] = suite.definitions.map((d) => ({
      ...d,
      id: randomUUID(),
      test_suite_id: suite.id,
      schema_name: schema,
    }));
  }
  return {
    version: 1,
    clock_offset_ms: 0,
    job_durations: jobDurations,
    order_durations: orderDurations,
    tokens: {},
    refresh_tokens: {},
    oauth_clients: {},
    jobs: {},
    job_order: [],
    orders: {},
    servings: {},
    definitions,
    job_plans: [],
    counters: { logins: 0, failed_logins: 0, cancels: {} },
  };
}

/** Loads state kept in `path`, or undefined when there is none yet. */
export function loadStateFile(path: string): SimStateData | undefined {
  if (!existsSync(path)) return undefined;
  let data: SimStateData;
  try {
    data = JSON.parse(readFileSync(path, 'utf8')) as SimStateData;
  } catch (err) {
    // Named, and left as it is: a state file that does not parse is not replaced by an empty state.
    throw new Error(`cannot read simulator state file ${path}: ${(err as Error).message}`, { cause: err });
  }
  if (data.version !== 1)
    throw new Error(`simulator state file ${path} has unsupported version ${String(data.version)}`);
  data.refresh_tokens ??= {}; // files written before the OAuth endpoint
  data.oauth_clients ??= {};
  return data;
}

/** Writes state atomically (a reader never sees half a file). */
export function saveStateFile(path: string, data: SimStateData): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(data));
  renameSync(tmp, path);
}
