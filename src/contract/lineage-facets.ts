/**
 * The project's two custom OpenLineage run facets, whose JSON Schemas ship in contract/lineage/ (generated from these,
 * `npm run contract:json`): the `_schemaURL` each event names.
 */
import { z } from 'zod';
import { ProfilingSummary, ResultCounts } from './types.js';

/** What a failed run's `dataops_run.failure.kind` says failed: the remote job, an order's run, the gates, the workflow. */
export const FAILURE_KINDS = ['job', 'order_run', 'quality_gates', 'workflow'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** The package's published copy of a custom facet's JSON Schema (contract/lineage/): what its `_schemaURL` names. */
export const facetSchemaUrl = (version: string, name: string): string =>
  `https://unpkg.com/dataops-temporal@${version}/contract/lineage/${name}.json`;

/** Run facet `dataops_run`: which workflow run, and which remote job with the link to its page. */
export const DataopsRunFacet = z
  .object({
    _producer: z.string(),
    _schemaURL: z.string(),
    workflowType: z.string(),
    workflowId: z.string(),
    workflowRunId: z.string(),
    role: z.string().optional().describe("The job's role in its workflow: profiling, test_run, generation"),
    jobId: z.string().optional().describe('The remote job, as the service names it'),
    url: z.string().optional().describe("The job's page in the service's UI, where the deployment has one"),
    orderId: z.string().optional().describe('An order workflow: the order it created'),
    orderRunId: z.string().optional().describe("An order workflow that waited for its order's run: that run"),
    orderRunUrl: z
      .string()
      .optional()
      .describe("The order run's page in the service's UI, where the deployment has one"),
    orderRunStatus: z.string().optional().describe("An order workflow that waited for its order's run: how it ended"),
    target: z
      .record(z.string(), z.string())
      .optional()
      .describe(
        "What the workflow works on, by its input's field names (tableGroupId, testSuiteId, an order's kitchen, recipe and variation, …): the job's name carries only what it checks",
      ),
    failure: z
      .object({
        kind: z
          .enum(FAILURE_KINDS)
          .describe(
            "What failed: the remote job itself, the order's run, the quality gates, or the workflow (a refusal, a timeout, an error of ours)",
          ),
        type: z.string().describe('The failure type, as the workflow failed with it (contract/failures.json)'),
      })
      .optional()
      .describe('FAIL: what failed'),
  })
  .describe('dataops-temporal: the Temporal workflow run, and the remote job of the service');

/** Run facet `dataops_quality`: the score, counts and gate verdict of a profiling run, test run or pipeline. */
export const DataopsQualityRunFacet = z
  .object({
    _producer: z.string(),
    _schemaURL: z.string(),
    scorePercent: z.number().nullable().optional().describe('The data quality score in percent, 0 to 100'),
    resultCounts: ResultCounts.nullable().optional().describe('A test run: tests by outcome'),
    profiling: ProfilingSummary.pick({
      tableCount: true,
      columnCount: true,
      recordCount: true,
      hygieneIssues: true,
      potentialPii: true,
      dismissedIssues: true,
    })
      .optional()
      .describe('A profiling run: what it counted'),
    gates: z
      .object({ passed: z.boolean(), violations: z.array(z.string()) })
      .optional()
      .describe("A pipeline: the quality gates' verdict"),
  })
  .describe('dataops-temporal: the quality results a run produced');
