/**
 * Workflow inputs and outputs: the zod schemas are the source of truth; JSON Schema files for callers in other
 * languages are generated from them (`npm run contract:json`, committed under contract/json-schema/).
 * Durations are integers in milliseconds, so every language can send them.
 */
import { z } from 'zod';
import { IMPORT_MODES, ON_ABSENCE, ON_MATCH, ON_NEW } from '../vocabulary.js';
import {
  BlobRef,
  ExportFilters,
  ImportItem,
  ImportSummary,
  JobWaitOutcome,
  OrderRunOutcome,
  ProfilingSummary,
  TestRunSummary,
} from './types.js';

const Ms = (min: number) => z.number().int().min(min);

/** Options shared by every workflow that runs a remote job. */
export const JobOptions = z.object({
  profile: z
    .string()
    .min(1)
    .default('default')
    .describe('Credential profile configured on the worker (never credentials)'),
  projectCode: z
    .string()
    .min(1)
    .optional()
    .describe("Project of the table group or suite; lets a lost submission be found. Default: the profile's"),
  cancelRemoteJob: z.boolean().default(true).describe('Cancel the remote job when the workflow is cancelled'),
  waitStrategy: z
    .enum(['auto', 'heartbeat', 'deferrable'])
    .default('auto')
    .describe(
      'heartbeat: short polls in one activity; deferrable: one poll per attempt, no slot held; auto: by expectedDurationMs',
    ),
  expectedDurationMs: Ms(1)
    .default(30 * 60_000)
    .describe('auto picks deferrable from 2 hours on'),
  pollIntervalMs: Ms(100).default(5_000),
  maxPollIntervalMs: Ms(100).default(30_000),
  maxWaitMs: Ms(1_000)
    .default(7 * 24 * 3_600_000)
    .describe('Give up waiting after this long'),
  heartbeatTimeoutMs: Ms(2_000)
    .default(60_000)
    .describe('A waiting worker that stops heartbeating for this long is presumed dead; another one carries on'),
  cancelTimeoutMs: Ms(1_000)
    .default(5 * 60_000)
    .describe('How long a cancelled workflow waits for the job to be canceled'),
});
export type JobOptions = z.infer<typeof JobOptions>;

const checkPolling = (
  v: { pollIntervalMs: number; maxPollIntervalMs: number; heartbeatTimeoutMs: number },
  ctx: z.RefinementCtx,
) => {
  if (v.maxPollIntervalMs < v.pollIntervalMs)
    ctx.addIssue({ code: 'custom', path: ['maxPollIntervalMs'], message: 'must be at least pollIntervalMs' });
  if (v.pollIntervalMs * 2 > v.heartbeatTimeoutMs)
    ctx.addIssue({ code: 'custom', path: ['heartbeatTimeoutMs'], message: 'must be at least twice pollIntervalMs' });
};

const Vars = z.record(z.string().min(1), z.unknown());

/** An order: recipe and variation in a kitchen, with runtime overrides. */
export const OrderSpec = z.object({
  kitchen: z.string().min(1),
  recipe: z.string().min(1),
  variation: z.string().min(1),
  parameters: Vars.default({}).describe('Runtime overrides: variable name → value'),
  overrides: z
    .object({
      orderSchedule: Vars.optional().describe('Start, recurrence, frequency, expiration'),
      infrastructure: Vars.optional().describe('Storage bucket, database schema, image tag, …'),
      sourceDataDate: Vars.optional().describe('Date of the source data, for backfills'),
      alertDestination: Vars.optional().describe('Where alerts of the run go'),
    })
    .strict()
    .default({})
    .describe('The four override kinds of the spec, merged into parameters'),
  wait: z.boolean().default(false).describe('Wait for the order run to finish (deployments with order-run status)'),
});

function checkOverrides(v: z.infer<typeof OrderSpec>, ctx: z.RefinementCtx, base: (string | number)[] = []) {
  const seen = new Map<string, string>(Object.keys(v.parameters).map((k) => [k, 'parameters']));
  for (const [kind, vars] of Object.entries(v.overrides)) {
    for (const name of Object.keys(vars ?? {})) {
      const first = seen.get(name);
      if (first)
        ctx.addIssue({
          code: 'custom',
          path: [...base, 'overrides', kind, name],
          message: `variable '${name}' is also set in ${first}`,
        });
      seen.set(name, `overrides.${kind}`);
    }
  }
}

export const RunOrderInput = OrderSpec.extend({
  profile: JobOptions.shape.profile,
  pollIntervalMs: JobOptions.shape.pollIntervalMs,
})
  .strict()
  .superRefine((v, ctx) => checkOverrides(v, ctx));
export type RunOrderInput = z.input<typeof RunOrderInput>;

export const OverrideKinds = z.object({
  order_schedule: Vars,
  infrastructure: Vars,
  source_data_date: Vars,
  alert_destination: Vars,
  other: Vars,
});

export const RunOrderResult = z.object({
  orderId: z.string(),
  status: z.string().nullable(),
  overridesApplied: OverrideKinds,
  variableOverrides: Vars.describe('As the service echoed them'),
  orderRun: OrderRunOutcome.nullable(),
});
export type RunOrderResult = z.infer<typeof RunOrderResult>;

export const ProfileTableGroupInput = JobOptions.extend({ tableGroupId: z.string().min(1) })
  .strict()
  .superRefine(checkPolling);
export type ProfileTableGroupInput = z.input<typeof ProfileTableGroupInput>;

export const RunTestSuiteInput = JobOptions.extend({ testSuiteId: z.string().min(1) })
  .strict()
  .superRefine(checkPolling);
export type RunTestSuiteInput = z.input<typeof RunTestSuiteInput>;

export const JobRun = z.object({
  jobId: z.string(),
  reconciled: z.boolean(),
  wait: JobWaitOutcome,
});
export type JobRun = z.infer<typeof JobRun>;

export const ProfileTableGroupResult = z.object({ job: JobRun, summary: ProfilingSummary });
export type ProfileTableGroupResult = z.infer<typeof ProfileTableGroupResult>;

export const RunTestSuiteResult = z.object({ job: JobRun, summary: TestRunSummary });
export type RunTestSuiteResult = z.infer<typeof RunTestSuiteResult>;

export const Gates = z
  .object({
    minScore: z.number().min(0).max(100).optional().describe('Lowest acceptable test-run score'),
    maxFailed: z.number().int().min(0).optional().describe('Most failed tests allowed'),
    maxErrors: z.number().int().min(0).optional().describe('Most tests in error allowed'),
    warningsAsFailures: z.boolean().default(false).describe('Count warnings as failed tests'),
  })
  .strict();
export type Gates = z.infer<typeof Gates>;

export const GateVerdict = z.object({
  passed: z.boolean(),
  violations: z.array(z.string()),
  evaluated: z.object({
    score: z.number().nullable(),
    failed: z.number().int(),
    errors: z.number().int(),
    warnings: z.number().int(),
  }),
});
export type GateVerdict = z.infer<typeof GateVerdict>;

export const DataQualityPipelineInput = JobOptions.extend({
  order: OrderSpec.extend({ wait: z.boolean().default(true) })
    .strict()
    .optional()
    .describe('An order to run first, e.g. the load that precedes the checks'),
  tableGroupId: z.string().min(1),
  testSuiteId: z.string().min(1),
  testGeneration: z
    .enum(['auto', 'wait', 'skip'])
    .default('auto')
    .describe('auto: wait for a follow-up generation job if one appears; wait: expect one; skip: do not look'),
  generationGraceMs: Ms(0).default(15_000).describe('How long to look for the generation job after profiling'),
  gates: Gates.default({ warningsAsFailures: false }),
  onGateFailure: z
    .enum(['fail', 'report'])
    .default('fail')
    .describe('fail: QualityGateFailed; report: a result marked failed'),
})
  .strict()
  .superRefine((v, ctx) => {
    checkPolling(v, ctx);
    if (v.order) checkOverrides(v.order, ctx, ['order']);
  });
export type DataQualityPipelineInput = z.input<typeof DataQualityPipelineInput>;

export const DataQualityPipelineResult = z.object({
  status: z.enum(['passed', 'failed']),
  order: RunOrderResult.nullable(),
  profiling: ProfileTableGroupResult,
  generation: JobRun.nullable(),
  testRun: RunTestSuiteResult,
  gates: GateVerdict,
});
export type DataQualityPipelineResult = z.infer<typeof DataQualityPipelineResult>;

// ---- promotion -------------------------------------------------------------------------------------------------

/** The spec's common configurations. */
export const PRESETS = {
  upsert: { on_match: 'overwrite_unlocked', on_new: 'create', on_absence: 'do_nothing' },
  promotion: { on_match: 'overwrite_unlocked', on_new: 'create_and_lock', on_absence: 'do_nothing' },
  bulk_calibration: { on_match: 'overwrite_unlocked', on_new: 'skip', on_absence: 'do_nothing' },
  insert_only: { on_match: 'skip', on_new: 'create', on_absence: 'do_nothing' },
  clone_or_sync: { on_match: 'overwrite_all', on_new: 'create', on_absence: 'delete_all' },
} as const;
export const Preset = z.enum(['upsert', 'promotion', 'bulk_calibration', 'insert_only', 'clone_or_sync']);
export type Preset = z.infer<typeof Preset>;

export const Policy = z
  .object({
    on_match: z.enum(ON_MATCH),
    on_new: z.enum(ON_NEW),
    on_absence: z.enum(ON_ABSENCE),
  })
  .strict();

export const PromoteTestDefinitionsInput = z
  .object({
    profile: JobOptions.shape.profile,
    source: z
      .union([
        z.object({ testSuiteId: z.string().min(1), filters: ExportFilters.default({}) }).strict(),
        z.object({ file: BlobRef }).strict().describe('An export file already in the worker store (e.g. a backup)'),
      ])
      .describe('The suite to export from (with filters), or a stored export file'),
    targetTestSuiteId: z.string().min(1),
    preset: Preset.optional(),
    policy: Policy.optional().describe('Explicit on_match / on_new / on_absence, instead of a preset'),
    mode: z.enum(IMPORT_MODES).exclude(['preview']).default('apply'),
    approval: z
      .object({
        required: z.boolean().default(true),
        timeoutMs: Ms(1_000).default(24 * 3_600_000),
      })
      .strict()
      .default({ required: true, timeoutMs: 24 * 3_600_000 }),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (!v.preset === !v.policy)
      ctx.addIssue({ code: 'custom', path: ['preset'], message: 'give exactly one of preset or policy' });
  });
export type PromoteTestDefinitionsInput = z.input<typeof PromoteTestDefinitionsInput>;

/** An import result as the workflow keeps it: counts always, items inline when small. */
export const ImportReport = z.object({
  summary: ImportSummary,
  definitions: z.number().int(),
  counts: z.record(z.string(), z.number().int()),
  items: z.array(ImportItem).nullable(),
  itemsRef: BlobRef.nullable(),
});
export type ImportReport = z.infer<typeof ImportReport>;

export const PromotionPreview = ImportReport.extend({
  previewId: z.string().describe('Names this preview; an approval must name it'),
  export: z.object({ file: BlobRef, definitions: z.number().int() }),
  config: Policy.extend({ mode: z.string() }),
  diff: z.array(z.string()).describe('Human-readable counts per action and reason'),
});
export type PromotionPreview = z.infer<typeof PromotionPreview>;

export const PromoteTestDefinitionsResult = z.object({
  status: z.enum(['applied', 'rejected', 'timed_out']),
  preview: PromotionPreview,
  applied: ImportReport.nullable(),
  diff: z.array(z.string()),
  decision: z
    .object({
      decision: z.enum(['approved', 'rejected', 'not_required', 'timed_out']),
      by: z.string().nullable(),
      comment: z.string().nullable(),
      at: z.string(),
    })
    .nullable(),
});
export type PromoteTestDefinitionsResult = z.infer<typeof PromoteTestDefinitionsResult>;

export const ApproveInput = z
  .object({
    previewId: z.string().min(1).describe('The preview being approved: must be the current one'),
    by: z.string().min(1).optional(),
    comment: z.string().optional(),
  })
  .strict();
export type ApproveInput = z.infer<typeof ApproveInput>;

export const RejectInput = z
  .object({
    previewId: z.string().min(1).optional(),
    by: z.string().min(1).optional(),
    reason: z.string().min(1),
  })
  .strict();
export type RejectInput = z.infer<typeof RejectInput>;

export const ExportTestDefinitionsInput = z
  .object({
    profile: JobOptions.shape.profile,
    testSuiteId: z.string().min(1),
    filters: ExportFilters.default({}),
    destination: z
      .string()
      .min(1)
      .regex(/^(?!\/)(?!.*(^|\/)\.\.(\/|$)).+\.json$/, 'a relative path ending in .json, without ..')
      .optional()
      .describe("Where to write the file, relative to the worker's export directory"),
  })
  .strict();
export type ExportTestDefinitionsInput = z.input<typeof ExportTestDefinitionsInput>;

export const ExportTestDefinitionsResult = z.object({
  file: BlobRef,
  definitions: z.number().int(),
  writtenTo: z.string().nullable(),
});
export type ExportTestDefinitionsResult = z.infer<typeof ExportTestDefinitionsResult>;

/** Live progress, answered by the `progress` query of every workflow. */
export const Progress = z.object({
  workflowType: z.string(),
  stage: z.string(),
  startedAt: z.string(),
  updatedAt: z.string(),
  jobs: z.array(
    z.object({
      role: z.string(),
      jobId: z.string(),
      status: z.string().nullable(),
      reconciled: z.boolean(),
    }),
  ),
  lastStatus: z.string().nullable().describe('As of the last activity that returned; see README for live status'),
  polls: z.number().int(),
  claims: z.number().int(),
  interrupts: z.number().int(),
  orderId: z.string().nullable(),
  remoteCancel: z
    .object({ jobId: z.string(), finalStatus: z.string(), alreadyTerminal: z.boolean() })
    .nullable()
    .describe('Set when the workflow was cancelled and cancelled its remote job'),
  error: z.string().nullable(),
});
export type Progress = z.infer<typeof Progress>;
