/**
 * Inputs and outputs of the job workflows (runOrder, profileTableGroup, runTestSuite) and of the data-quality
 * pipeline, with the job options they share. The zod schemas are the source of truth; JSON Schema files for callers
 * in other languages are generated from them (`npm run contract:json`, committed under contract/json-schema/).
 * Durations are integers in milliseconds, so every language can send them.
 */
import { z } from 'zod';
import {
  DEFAULT_CANCEL_TIMEOUT_MS,
  DEFAULT_MAX_WAIT_MS,
  DEFAULT_OUTAGE_TOLERANCE_MS,
  DEFAULT_STATUS_REPORTS,
} from './activity-options.js';
import { JobWaitOutcome, OrderRunOutcome, ProfilingSummary, TestRunSummary } from './types.js';

/** A duration or interval in whole milliseconds, at least `min`. */
export const Ms = (min: number) => z.number().int().min(min);

/** How long calls keep retrying through an outage of the service; shared by every workflow. */
export const OutageToleranceMs = Ms(60_000)
  .max(30 * 24 * 3_600_000)
  .default(DEFAULT_OUTAGE_TOLERANCE_MS)
  .describe('Each call keeps retrying through an outage of the service this long before the workflow fails (6 h)');

/** What `cancelTimeoutMs` bounds for an order. */
const ORDER_STOP_TIMEOUT =
  'For an order: how long a cancelled workflow reads its runs back after the stop (stopping any run still going) ' +
  'until each is seen terminal';

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
  maxPollIntervalMs: Ms(100).default(30_000).describe('At least pollIntervalMs'),
  maxWaitMs: Ms(1_000)
    .default(DEFAULT_MAX_WAIT_MS)
    .describe('Give up waiting for each job after this long: cancel it, and fail JobWaitTimedOut'),
  heartbeatTimeoutMs: Ms(2_000)
    .default(60_000)
    .describe(
      'A waiting worker that stops heartbeating for this long is presumed dead; another one carries on. ' +
        'At least twice pollIntervalMs',
    ),
  maxStatusDurationMs: Ms(1_000)
    .optional()
    .describe(
      'Surface a job that sits in one non-terminal status (e.g. paused, which only a person ends) longer than this',
    ),
  statusReports: z
    .number()
    .int()
    .min(0)
    .max(20)
    .default(DEFAULT_STATUS_REPORTS)
    .describe(
      'How many status changes the wait of each job reports to the workflow, so that the progress query shows them ' +
        'live (the first is the job starting to work; each costs 4 history events, so they are bounded: after the ' +
        'last one, progress shows the status as of that report). 0: none, the job shows pending until it ends',
    ),
  onStatusStuck: z
    .enum(['report', 'fail'])
    .default('report')
    .describe('report: record it in progress, memo and log, and keep waiting; fail: cancel the job and fail JobStuck'),
  cancelTimeoutMs: Ms(1_000)
    .default(DEFAULT_CANCEL_TIMEOUT_MS)
    .describe(
      'How long a workflow that ends while its job runs keeps trying to cancel the job and waits to see it ' +
        `canceled. ${ORDER_STOP_TIMEOUT}`,
    ),
  outageToleranceMs: OutageToleranceMs,
});
export type JobOptions = z.infer<typeof JobOptions>;

/**
 * Rules across fields, which JSON Schema cannot state: each is in the generated schema's `x-rules` (and its
 * description), worded as the worker enforces it, and `test/contract/agreement.test.ts` holds the two to each other.
 */
export const POLLING_RULES = [
  'maxPollIntervalMs >= pollIntervalMs (after defaults)',
  'heartbeatTimeoutMs >= 2 * pollIntervalMs (after defaults)',
];
export const OVERRIDE_RULE = 'a variable is set once: in parameters or in one override kind, not in two';

/** JSON Schema keywords for rules across fields: `x-rules` for tools, the description for people. */
export const rulesMeta = (rules: string[], what: string) => ({
  'x-rules': rules,
  description: `${what}. Rules across fields (not expressible in JSON Schema, enforced by the worker): ${rules.join('; ')}`,
});

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
    .describe(
      'The four override kinds of the spec, merged into parameters. A variable may appear once: in parameters or ' +
        'in one override kind',
    ),
  wait: z.boolean().default(false).describe('Wait for the order run to finish (deployments with order-run status)'),
  maxWaitMs: Ms(1_000)
    .default(DEFAULT_MAX_WAIT_MS)
    .describe('Give up waiting for the order run after this long: stop the order, and fail JobWaitTimedOut'),
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
  cancelTimeoutMs: JobOptions.shape.cancelTimeoutMs.describe(ORDER_STOP_TIMEOUT),
  outageToleranceMs: OutageToleranceMs,
})
  .strict()
  .superRefine((v, ctx) => checkOverrides(v, ctx))
  .meta(rulesMeta([OVERRIDE_RULE], 'Input of runOrder'));
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
  reconciled: z.boolean().describe('The create answer was lost; the order was found in the order listing'),
  orderRun: OrderRunOutcome.nullable(),
});
export type RunOrderResult = z.infer<typeof RunOrderResult>;

export const ProfileTableGroupInput = JobOptions.extend({ tableGroupId: z.string().min(1) })
  .strict()
  .superRefine(checkPolling)
  .meta(rulesMeta(POLLING_RULES, 'Input of profileTableGroup'));
export type ProfileTableGroupInput = z.input<typeof ProfileTableGroupInput>;

export const RunTestSuiteInput = JobOptions.extend({ testSuiteId: z.string().min(1) })
  .strict()
  .superRefine(checkPolling)
  .meta(rulesMeta(POLLING_RULES, 'Input of runTestSuite'));
export type RunTestSuiteInput = z.input<typeof RunTestSuiteInput>;

export const JobRun = z.object({
  jobId: z.string(),
  reconciled: z.boolean(),
  wait: JobWaitOutcome,
  url: z.string().optional().describe("The job's page in the service's UI, where the worker knows one"),
});
export type JobRun = z.infer<typeof JobRun>;

export const ProfileTableGroupResult = z.object({ job: JobRun, summary: ProfilingSummary });
export type ProfileTableGroupResult = z.infer<typeof ProfileTableGroupResult>;

export const RunTestSuiteResult = z.object({ job: JobRun, summary: TestRunSummary });
export type RunTestSuiteResult = z.infer<typeof RunTestSuiteResult>;

export const Gates = z
  .object({
    minScorePercent: z
      .number()
      .min(0)
      .max(100)
      .optional()
      .describe('Lowest acceptable test-run score, in percent (0 to 100); a run without a score fails this gate'),
    minScore: z
      .never({ error: 'renamed minScorePercent: give the lowest score in percent (0 to 100)' })
      .optional()
      .describe('Renamed minScorePercent; refused so that no caller is read in the wrong unit'),
    maxFailed: z.number().int().min(0).optional().describe('Most failed tests allowed'),
    maxErrors: z.number().int().min(0).optional().describe('Most tests in error allowed'),
    warningsAsFailures: z.boolean().default(false).describe('Count warnings as failed tests'),
  })
  .strict();
export type Gates = z.infer<typeof Gates>;

/** The limits a verdict was judged against: the input's `gates`, each limit null when none was set. */
export const AppliedGates = z.object({
  minScorePercent: z.number().nullable().describe('The lowest score allowed, in percent; null: no score limit'),
  maxFailed: z.number().int().nullable().describe('The most failed tests allowed; null: no limit'),
  maxErrors: z.number().int().nullable().describe('The most tests in error allowed; null: no limit'),
  warningsAsFailures: z.boolean().describe('Whether warnings counted as failed tests'),
});
export type AppliedGates = z.infer<typeof AppliedGates>;

export const GateVerdict = z.object({
  passed: z.boolean(),
  violations: z.array(z.string()),
  evaluated: z.object({
    scorePercent: z.number().nullable(),
    failed: z.number().int(),
    errors: z.number().int(),
    warnings: z.number().int(),
  }),
  limits: AppliedGates.optional().describe(
    'The limits judged against (all null: none set, so every run passes); absent in results of pipelines that ended before contract 0.3',
  ),
});
export type GateVerdict = z.infer<typeof GateVerdict>;

export const DataQualityPipelineInput = JobOptions.extend({
  order: OrderSpec.extend({
    wait: z.boolean().default(true),
    continueOnFailure: z
      .boolean()
      .default(false)
      .describe('Profile and test even when the order run did not complete (its data may be stale); default: fail'),
  })
    .strict()
    .optional()
    .describe('An order to run first, e.g. the load that precedes the checks'),
  tableGroupId: z.string().min(1),
  testSuiteId: z.string().min(1),
  testGeneration: z
    .enum(['auto', 'wait', 'generate', 'skip'])
    .default('auto')
    .describe(
      'auto: wait for a follow-up generation job if one appears; wait: expect one; generate: start test generation for ' +
        'the suite after profiling and wait for it (TestGen, whose follow-up job follows only a first profiling run); ' +
        'skip: do not look',
    ),
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
  })
  .meta(rulesMeta([...POLLING_RULES, `order: ${OVERRIDE_RULE}`], 'Input of dataQualityPipeline'));
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

/** The input schema of each workflow above, by its name: part of WORKFLOW_INPUTS (inputs.ts). */
export const JOB_WORKFLOW_INPUTS = {
  dataQualityPipeline: DataQualityPipelineInput,
  profileTableGroup: ProfileTableGroupInput,
  runTestSuite: RunTestSuiteInput,
  runOrder: RunOrderInput,
} as const;
