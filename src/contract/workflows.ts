/**
 * Inputs and outputs of the job workflows (runOrder, profileTableGroup, runTestSuite) and of the data-quality
 * pipeline; the options they share are in job-options.ts, an order's in orders.ts. The zod schemas are the source of
 * truth; JSON Schema files for callers in other languages are generated from them (`npm run contract:json`, committed
 * under contract/json-schema/).
 */
import { z } from 'zod';
import { JobWaitOutcome, ProfilingSummary, TestRunSummary } from './types.js';
import { checkPolling, JobOptions, Ms, POLLING_RULES, rulesMeta } from './job-options.js';
import { checkOverrides, OrderSpec, OVERRIDE_RULE, RunOrderInput, RunOrderResult } from './orders.js';

export { JobOptions, Ms, OutageToleranceMs, POLLING_RULES, rulesMeta } from './job-options.js';
export { OrderSpec, OverrideKinds, OVERRIDE_RULE, RunOrderInput, RunOrderResult } from './orders.js';

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
