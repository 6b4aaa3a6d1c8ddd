/**
 * Zod schemas of every request and response: the single source of the response types. Unknown fields pass through;
 * a real schema break becomes UnexpectedResponse naming the field. Timestamps are validated and normalised to UTC
 * ISO 8601 strings (not Date objects), so parsed values cross Temporal's JSON payloads without changing type.
 */
import { z } from 'zod';
import { EXPORT_ORIGINS, IMPORT_MODES, ON_ABSENCE, ON_MATCH, ON_NEW } from '../vocabulary.js';

/** An ISO 8601 timestamp, normalised to `YYYY-MM-DDTHH:mm:ss.sssZ`. */
export const Timestamp = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), { message: 'expected an ISO 8601 timestamp' })
  .transform((s) => new Date(s).toISOString());

/** A job (profiling run or test run). `status` stays a string: unknown statuses must not break parsing. */
export const Job = z.looseObject({
  id: z.string().min(1),
  job_key: z.string(),
  status: z.string().min(1),
  source: z.string().optional(),
  created_at: Timestamp,
  claimed_at: Timestamp.nullable().optional().default(null),
  started_at: Timestamp.nullable().optional().default(null),
  completed_at: Timestamp.nullable().optional().default(null),
  error_message: z.string().nullable().optional().default(null),
});
export type Job = z.infer<typeof Job>;

export const JobSubmission = z.looseObject({ id: z.string().min(1), created_at: Timestamp.optional() });
export type JobSubmission = z.infer<typeof JobSubmission>;

export const JobList = z.looseObject({
  items: z.array(Job),
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
});
export type JobList = z.infer<typeof JobList>;

const Count = z.number().int().nonnegative();
export const ResultCounts = z.looseObject({
  passed: Count.default(0),
  failed: Count.default(0),
  warning: Count.default(0),
  error: Count.default(0),
  log: Count.default(0),
  dismissed: Count.default(0),
});
export type ResultCounts = z.infer<typeof ResultCounts>;

/** Test-run result in either shape (`result_counts` per spec, `tests` as deployed), normalised to the spec's. */
const TestRunResult = z
  .looseObject({
    score: z.number().nullable().default(null),
    result_counts: ResultCounts.optional(),
    tests: ResultCounts.optional(),
  })
  .superRefine((r, ctx) => {
    if (!r.result_counts && !r.tests)
      ctx.addIssue({ code: 'custom', path: ['result_counts'], message: 'expected result_counts (or tests)' });
  })
  .transform(({ tests, result_counts, ...rest }) => ({
    ...rest,
    score: rest.score,
    result_counts: (result_counts ?? tests)!,
  }));

/** TestGen 5.134 sends null targets and a null score on runs cancelled early, and a null score until it is rolled up. */
export const TestRunSummary = z.looseObject({
  id: z.string(),
  status: z.string(),
  test_suite_id: z.string().nullable().default(null),
  table_group_id: z.string().nullable().default(null),
  started_at: Timestamp.nullable().optional().default(null),
  completed_at: Timestamp.nullable().optional().default(null),
  /** Null until the run has produced results. */
  result: TestRunResult.nullable().optional().default(null),
});
export type TestRunSummary = z.infer<typeof TestRunSummary>;

const Hygiene = z.looseObject({ definite: Count.default(0), likely: Count.default(0), possible: Count.default(0) });
const Pii = z.looseObject({ high: Count.default(0), moderate: Count.default(0) });
const IssueCounts = z.looseObject({
  hygiene_issues: Hygiene,
  potential_pii: Pii.nullable().default(null),
  dismissed: Count,
});
/** Deployed shape: `issues: {definite, likely, possible, dismissed}`, without PII counts. */
const DeployedIssues = z.looseObject({
  definite: Count.default(0),
  likely: Count.default(0),
  possible: Count.default(0),
  dismissed: Count.default(0),
});

const ProfilingResult = z
  .looseObject({
    score: z.number().nullable().default(null),
    table_ct: Count.nullable().default(null),
    column_ct: Count.nullable().default(null),
    record_ct: Count.nullable().default(null),
    issue_counts: IssueCounts.optional(),
    issues: DeployedIssues.optional(),
  })
  .superRefine((r, ctx) => {
    if (!r.issue_counts && !r.issues)
      ctx.addIssue({ code: 'custom', path: ['issue_counts'], message: 'expected issue_counts (or issues)' });
  })
  .transform(({ issues, issue_counts, ...rest }) => ({
    ...rest,
    issue_counts: issue_counts ?? {
      hygiene_issues: { definite: issues!.definite, likely: issues!.likely, possible: issues!.possible },
      /** Null where the deployment does not report PII counts. */
      potential_pii: null,
      dismissed: issues!.dismissed,
    },
  }));

export const ProfilingSummary = z.looseObject({
  id: z.string(),
  status: z.string(),
  table_group_id: z.string().nullable().default(null),
  started_at: Timestamp.nullable().optional().default(null),
  completed_at: Timestamp.nullable().optional().default(null),
  result: ProfilingResult.nullable().optional().default(null),
});
export type ProfilingSummary = z.infer<typeof ProfilingSummary>;

/** The order-create answer; the order id key differs between deployments and is returned as `order_id`. */
const ORDER_ID_KEYS = ['order_id', 'serving_hid', 'serving_chronos_id'] as const;
export const OrderCreated = z
  .looseObject({
    status: z.string().optional(),
    order_id: z.string().optional(),
    serving_hid: z.string().optional(),
    serving_chronos_id: z.string().optional(),
    variable_overrides: z.record(z.string(), z.unknown()).optional().default({}),
  })
  .superRefine((r, ctx) => {
    if (!ORDER_ID_KEYS.some((k) => typeof r[k] === 'string' && r[k] !== ''))
      ctx.addIssue({ code: 'custom', path: ['order_id'], message: `expected one of ${ORDER_ID_KEYS.join(', ')}` });
  })
  .transform((r) => ({ ...r, order_id: (r.order_id ?? r.serving_hid ?? r.serving_chronos_id)! }));
export type OrderCreated = z.infer<typeof OrderCreated>;

export const OrderRun = z.looseObject({ hid: z.string(), status: z.string() });
export type OrderRun = z.infer<typeof OrderRun>;
export const OrderRuns = z.looseObject({ servings: z.array(OrderRun) });

/**
 * Who the `/v2` session is (`GET /v2/userinfo`, deployed-variants.md): read only for `customer_git_name`, which the
 * UI's order-run pages are addressed by.
 */
export const UserInfo = z.looseObject({ customer_git_name: z.string().min(1) });
export type UserInfo = z.infer<typeof UserInfo>;

/**
 * The order listing (`GET /v2/order/status/{kitchen}`, deployed-variants.md): recent orders in `orders[]` and their
 * runs in `servings`, keyed by order id. Read defensively: the order ids from both, once each.
 */
export const OrderListing = z
  .looseObject({
    orders: z.array(z.looseObject({})).optional().default([]),
    servings: z
      .record(z.string(), z.looseObject({ servings: z.array(z.looseObject({})).optional() }))
      .nullable()
      .optional()
      .default({}),
  })
  .transform((r) => {
    const ids = new Set(Object.keys(r.servings ?? {}));
    for (const o of r.orders)
      for (const key of ['order_id', 'hid'])
        if (typeof o[key] === 'string') {
          ids.add(o[key]);
          break;
        }
    return { orderIds: [...ids] };
  });
export type OrderListing = z.infer<typeof OrderListing>;

export const Health = z.looseObject({
  status: z.string(),
  edition: z.string().nullish(),
  /** Null on a pip install of TestGen. */
  version: z.string().nullish(),
});
export type Health = z.infer<typeof Health>;

/** A test definition: the spec's fields, everything else passes through untouched. */
export const TestDefinition = z.looseObject({
  test_type: z.string(),
  /** Absent where equal to its default in a compact export; table-level tests (e.g. Dupe_Rows) have no column. */
  table_name: z.string().optional(),
  column_name: z.string().optional(),
  external_id: z.string().nullish(),
});
export type TestDefinition = z.infer<typeof TestDefinition>;

/** An export file. A missing `version` reads as 1 (one deployed version omits it). */
export const ExportFile = z.looseObject({
  version: z.number().int().optional().default(1),
  source: z.looseObject({}).optional(),
  definitions: z.array(TestDefinition),
});
export type ExportFile = z.infer<typeof ExportFile>;
export type ExportFileInput = z.input<typeof ExportFile>;

export const ExportFilters = z
  .object({
    origin: z.enum(EXPORT_ORIGINS).optional(),
    table_name: z.string().min(1).optional(),
    test_type: z.string().min(1).optional(),
  })
  .strict();
export type ExportFilters = z.infer<typeof ExportFilters>;

export const ImportMode = z.enum(IMPORT_MODES);
export const OnMatch = z.enum(ON_MATCH);
export const OnNew = z.enum(ON_NEW);
export const OnAbsence = z.enum(ON_ABSENCE);
export const ImportConfig = z
  .object({ mode: ImportMode, on_match: OnMatch, on_new: OnNew, on_absence: OnAbsence })
  .strict();
export type ImportConfig = z.infer<typeof ImportConfig>;

export const ImportResult = z.looseObject({
  summary: z.looseObject({ created: Count, updated: Count, skipped: Count, deleted: Count }),
  items: z.array(
    z.looseObject({
      action: z.string(),
      reason: z.string(),
      tds: z.array(z.looseObject({ idx: z.number().int().nullable(), target_id: z.string().nullable() })),
    }),
  ),
});
export type ImportResult = z.infer<typeof ImportResult>;

/**
 * A table group as TestGen 5.134 describes it: `default_test_suite_id` is where profiling's follow-up generation goes;
 * its connection and schema say where its tables live (lineage's dataset names).
 */
export const TableGroup = z.looseObject({
  default_test_suite_id: z.string().nullable().optional(),
  connection_id: z.union([z.number().int(), z.string()]).nullable().optional(),
  schema_name: z.string().nullable().optional(),
});
export type TableGroup = z.infer<typeof TableGroup>;

/**
 * A connection as TestGen 5.134 describes it (`GET connections/{id}`): its type (`PostgreSQL`, `Snowflake`, …) and
 * the settings that reach its data source (host, port, database, catalog, …), never its credentials.
 */
export const Connection = z.looseObject({
  connection_id: z.union([z.number().int(), z.string()]),
  connection_name: z.string().nullable().optional(),
  connection_type: z.string(),
  settings: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type Connection = z.infer<typeof Connection>;

/** A page of a table group's profiling runs (TestGen 5.134); only the total is read. */
export const ProfilingRunPage = z.looseObject({ total: z.number().int().nonnegative() });
export type ProfilingRunPage = z.infer<typeof ProfilingRunPage>;

/** A page of a test run's per-test results (TestGen 5.134, `GET test-runs/{id}/results`): what lineage reads. */
export const TestResultPage = z.looseObject({
  items: z.array(
    z.looseObject({
      test_type: z.string(),
      test_type_name: z.string().nullish(),
      schema_name: z.string().nullish(),
      table_name: z.string().nullish(),
      column_names: z.string().nullish(),
      result_status: z.string().nullish(),
    }),
  ),
  total: z.number().int().nonnegative(),
});
export type TestResultPage = z.infer<typeof TestResultPage>;

/** A page of a profiling run's column profiles (TestGen 5.134, `GET profiling-runs/{id}/columns`): what lineage reads. */
export const ProfilingColumnPage = z.looseObject({
  items: z.array(
    z.looseObject({
      schema_name: z.string().nullish(),
      table_name: z.string(),
      column_name: z.string(),
      db_data_type: z.string().nullish(),
      record_ct: z.number().int().nullish(),
      null_value_ct: z.number().int().nullish(),
      distinct_value_ct: z.number().int().nullish(),
    }),
  ),
  total: z.number().int().nonnegative(),
});
export type ProfilingColumnPage = z.infer<typeof ProfilingColumnPage>;
