/**
 * Data shapes that cross the workflow boundary: produced by activities, kept in workflow history, returned to
 * callers. Deliberately closed (no pass-through fields), so history stays small and the shapes stay stable.
 */
import { z } from 'zod';
import { EXPORT_ORIGINS, IMPORT_MODES, ON_ABSENCE, ON_MATCH, ON_NEW } from '../vocabulary.js';

export const Iso = z.string().describe('ISO 8601 UTC timestamp');

export { TERMINAL_JOB_STATUSES, isTerminalJobStatus } from '../vocabulary.js';

/** A job (profiling run, test run or generation job) as seen at one poll. */
export const JobSnapshot = z.object({
  id: z.string(),
  job_key: z.string(),
  status: z.string().describe('Only completed, error and canceled are terminal'),
  created_at: Iso,
  claimed_at: Iso.nullable(),
  started_at: Iso.nullable(),
  completed_at: Iso.nullable(),
  error_message: z.string().nullable(),
});
export type JobSnapshot = z.infer<typeof JobSnapshot>;

/** What waiting for a job saw on the way. */
export const JobWaitOutcome = z.object({
  job: JobSnapshot,
  polls: z.number().int().describe('Polls made across every attempt (best effort for the deferrable strategy)'),
  claims: z.number().int().describe('Distinct claims seen: more than one means the run was resumed'),
  interrupts: z.number().int().describe('Times the job was seen entering interrupted'),
  durationMs: z
    .number()
    .nullable()
    .describe('From started_at to completed_at (or to the last poll); never from claimed_at'),
  stuck: z
    .object({ status: z.string(), forMs: z.number().int() })
    .nullable()
    .default(null)
    .describe('Set when the wait returned early: the job has sat in one status longer than maxStatusDurationMs'),
});
export type JobWaitOutcome = z.infer<typeof JobWaitOutcome>;

export const JobSubmitted = z.object({
  jobId: z.string(),
  createdAt: Iso.nullable(),
  /** True when a lost submission response was reconciled by finding the job instead of submitting again. */
  reconciled: z.boolean(),
});
export type JobSubmitted = z.infer<typeof JobSubmitted>;

/** Progress carried between polls and attempts (heartbeat details). */
export const WaitProgress = z.object({
  lastStatus: z.string().nullable(),
  claimsSeen: z.array(z.string()),
  interrupts: z.number().int(),
  polls: z.number().int(),
  /** When the job was first seen in its current status (epoch ms, worker clock). */
  statusSince: z.number().nullable().default(null),
  /** The status last reported to the workflow (the `jobStatus` signal), and when (epoch ms, worker clock). */
  reportedStatus: z.string().nullable().default(null),
  reportedAt: z.number().nullable().default(null),
  /** Reports sent so far by this wait, across its attempts: they are bounded by its `statusReports`. */
  reports: z.number().int().default(0),
});
export type WaitProgress = z.infer<typeof WaitProgress>;

/**
 * What a waiting activity tells its workflow when the job's status changes (the `jobStatus` signal), so that the
 * `progress` query shows the live status while the wait runs. Sent by our activities, at most every few seconds.
 */
export const JobStatusReport = z.object({
  jobId: z.string(),
  status: z.string(),
  polls: z.number().int(),
  claims: z.number().int(),
  interrupts: z.number().int(),
  /** When the wait saw this status (ISO, worker clock); absent from reports of waits started before it was sent. */
  at: z.string().optional(),
  /** The wait's last report: its budget (`statusReports`) is spent, so later changes show only when it ends. */
  last: z.boolean().optional(),
});
export type JobStatusReport = z.infer<typeof JobStatusReport>;

export const ResultCounts = z.object({
  passed: z.number().int(),
  failed: z.number().int(),
  warning: z.number().int(),
  error: z.number().int(),
  log: z.number().int(),
  dismissed: z.number().int(),
});
export type ResultCounts = z.infer<typeof ResultCounts>;

export const TestRunSummary = z.object({
  jobId: z.string(),
  status: z.string(),
  testSuiteId: z.string().nullable(),
  tableGroupId: z.string().nullable(),
  startedAt: Iso.nullable(),
  completedAt: Iso.nullable(),
  scorePercent: z
    .number()
    .nullable()
    .describe('Data quality score in percent (0 to 100), whatever the deployment reports; null when not available'),
  resultCounts: ResultCounts.nullable(),
});
export type TestRunSummary = z.infer<typeof TestRunSummary>;

export const ProfilingSummary = z.object({
  jobId: z.string(),
  status: z.string(),
  tableGroupId: z.string().nullable(),
  startedAt: Iso.nullable(),
  completedAt: Iso.nullable(),
  scorePercent: z
    .number()
    .nullable()
    .describe('Data quality score in percent (0 to 100), whatever the deployment reports; null when not available'),
  tableCount: z.number().int().nullable(),
  columnCount: z.number().int().nullable(),
  recordCount: z.number().int().nullable(),
  hygieneIssues: z
    .object({ definite: z.number().int(), likely: z.number().int(), possible: z.number().int() })
    .nullable(),
  potentialPii: z
    .object({ high: z.number().int(), moderate: z.number().int() })
    .nullable()
    .describe('Null where the deployment does not report PII counts'),
  dismissedIssues: z.number().int().nullable(),
});
export type ProfilingSummary = z.infer<typeof ProfilingSummary>;

export const OrderResult = z.object({
  orderId: z.string(),
  status: z.string().nullable(),
  variableOverrides: z.record(z.string(), z.unknown()),
  reconciled: z.boolean().describe('The create answer was lost; the order was found in the order listing'),
});
export type OrderResult = z.infer<typeof OrderResult>;

export const OrderRunOutcome = z.object({
  orderRunId: z.string(),
  status: z.string(),
  polls: z.number().int(),
  url: z
    .string()
    .optional()
    .describe("The order run's page in the service's UI, where the deployment names its account (GET /v2/userinfo)"),
});
export type OrderRunOutcome = z.infer<typeof OrderRunOutcome>;

/** How an order's stop went: its runs as last read, and whether every one was seen terminal. */
export const OrderStopOutcome = z.object({
  /** Every run of the order was seen terminal after the stop (or it had none). */
  confirmed: z.boolean(),
  runs: z.array(z.object({ orderRunId: z.string(), status: z.string() })),
  /** The last read or run stop that failed while confirming; null when the last round read cleanly. */
  error: z.string().nullable(),
});
export type OrderStopOutcome = z.infer<typeof OrderStopOutcome>;

export const CancelOutcome = z.object({
  job: JobSnapshot,
  /** True when the job was already terminal (the service answered 409): nothing was cancelled. */
  alreadyTerminal: z.boolean(),
});
export type CancelOutcome = z.infer<typeof CancelOutcome>;

/** A claim check: a large document (export file, import items) kept outside workflow history. */
export const BlobRef = z.object({
  ref: z.string().describe('Store-specific reference, e.g. local:sha256-<hex>.json.gz'),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lower-case hex digits'),
  bytes: z.number().int().nonnegative().describe('Uncompressed JSON size'),
});
export type BlobRef = z.infer<typeof BlobRef>;

export const ImportSummary = z.object({
  created: z.number().int(),
  updated: z.number().int(),
  skipped: z.number().int(),
  deleted: z.number().int(),
});
export type ImportSummary = z.infer<typeof ImportSummary>;

export const ImportItem = z.object({
  action: z.string(),
  reason: z.string(),
  tds: z.array(z.object({ idx: z.number().int().nullable(), target_id: z.string().nullable() })),
});
export type ImportItem = z.infer<typeof ImportItem>;

/** An import result kept small: counts per action and reason always; items inline when small, else by reference. */
export const ImportOutcome = z.object({
  summary: ImportSummary,
  definitions: z.number().int().describe('Definitions in the imported file'),
  /** Definitions per `action/reason`, e.g. {"skip/locked": 2}. */
  counts: z.record(z.string(), z.number().int()),
  items: z.array(ImportItem).nullable().describe('Inline when small; null when stored by itemsRef'),
  itemsRef: BlobRef.nullable(),
  reconciled: z
    .boolean()
    .describe(
      "True when the apply's answer was lost and a re-preview showed it had landed: the counts are the preview's",
    ),
});
export type ImportOutcome = z.infer<typeof ImportOutcome>;

export const ExportOutcome = z.object({
  file: BlobRef,
  definitions: z.number().int(),
  version: z.number().int(),
});
export type ExportOutcome = z.infer<typeof ExportOutcome>;

export const ImportConfig = z.object({
  mode: z.enum(IMPORT_MODES),
  on_match: z.enum(ON_MATCH),
  on_new: z.enum(ON_NEW),
  on_absence: z.enum(ON_ABSENCE),
});
export type ImportConfig = z.infer<typeof ImportConfig>;

export const ExportFilters = z
  .object({
    origin: z.enum(EXPORT_ORIGINS).optional(),
    table_name: z.string().min(1).optional(),
    test_type: z.string().min(1).optional(),
  })
  .strict();
export type ExportFilters = z.infer<typeof ExportFilters>;
