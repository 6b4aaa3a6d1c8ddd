/**
 * OpenLineage run events (spec 2-0-2) from a workflow's transitions (src/contract/lineage.ts). A workflow run is a
 * run of its own, with its Temporal run id; each remote job is a run whose parent is that workflow's run, with the
 * job's own id. Both ids are the same on every retry and worker, so a repeated event is the same run's.
 */
import { createHash } from 'node:crypto';
import type { LineageFacts, LineageTransition, LineageWorkflow } from '../contract/lineage.js';
import { facetSchemaUrl, type FailureKind } from '../contract/lineage-facets.js';

const SPEC = 'https://openlineage.io/spec';
const RUN_EVENT_SCHEMA = `${SPEC}/2-0-2/OpenLineage.json#/$defs/RunEvent`;
/** The facet versions of the OpenLineage Python client 1.54 (the version our tests parse the events with). */
const FACET_SCHEMAS = {
  parent: `${SPEC}/facets/1-2-0/ParentRunFacet.json#/$defs/ParentRunFacet`,
  jobType: `${SPEC}/facets/2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet`,
  errorMessage: `${SPEC}/facets/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet`,
  dataQualityMetrics: `${SPEC}/facets/1-0-3/DataQualityMetricsInputDatasetFacet.json#/$defs/DataQualityMetricsInputDatasetFacet`,
  dataQualityAssertions: `${SPEC}/facets/1-1-0/DataQualityAssertionsDatasetFacet.json#/$defs/DataQualityAssertionsDatasetFacet`,
  schema: `${SPEC}/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet`,
} as const;

export interface LineageSettings {
  /** The jobs' namespace: the deployment's (DATAOPS_LINEAGE_NAMESPACE, else from its Temporal namespace). */
  namespace: string;
  /**
   * The tables' namespace where their connection does not name them (src/lineage/naming.ts): where they live
   * (DATAOPS_LINEAGE_DATASET_NAMESPACE, e.g. postgres://host:5432). @default namespace
   */
  datasetNamespace?: string;
  /** This package and its version: the events' and facets' `producer`. */
  producerVersion: string;
  /**
   * The language of the service that runs the remote jobs, for the `errorMessage` of a job's own failure
   * (DATAOPS_LINEAGE_SERVICE_LANGUAGE). @default Python (TestGen, the quality-job API's reference implementation)
   */
  serviceLanguage?: string;
}

type Json = Record<string, unknown>;

/** A test run's outcome per test, where the deployment lists them (TestGen: `GET test-runs/{id}/results`). */
export interface TestAssertion {
  assertion: string;
  success: boolean;
  column?: string;
  severity?: string;
  name?: string;
}

/** A column as a profiling run saw it (TestGen: `GET profiling-runs/{id}/columns`). */
export interface ColumnFacts {
  name: string;
  type?: string;
  count?: number;
  nullCount?: number;
  distinctCount?: number;
}

/** One table of the table group, with what the job found there, where the deployment tells it. */
export interface TableFacts {
  schema?: string;
  table: string;
  /** Its OpenLineage dataset name, from its connection (src/lineage/naming.ts); else `schema.table` in datasetNamespace. */
  dataset?: { namespace: string; name: string };
  columns?: ColumnFacts[];
  assertions?: TestAssertion[];
}

const producer = (s: LineageSettings): string =>
  `https://www.npmjs.com/package/dataops-temporal/v/${encodeURIComponent(s.producerVersion)}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A remote job's run id: its own id where that is a UUID (the spec's), else a UUID derived from it (version 5). */
export function jobRunId(namespace: string, role: string, jobId: string): string {
  if (UUID.test(jobId)) return jobId.toLowerCase();
  const h = createHash('sha1').update(`${namespace}/${role}/${jobId}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The names a target's fields take in job and dataset names. */
const TARGET_NAMES: Record<string, string> = {
  tableGroupId: 'table_group',
  testSuiteId: 'test_suite',
  sourceTestSuiteId: 'from_suite',
  targetTestSuiteId: 'to_suite',
  kitchen: 'kitchen',
  recipe: 'recipe',
  variation: 'variation',
};

const targetPath = (target: Record<string, string>, keys = Object.keys(target)): string =>
  keys
    .filter((k) => target[k] !== undefined)
    .map((k) => `${TARGET_NAMES[k] ?? k}=${target[k]}`)
    .join('.');

/**
 * What names a workflow's job, where not all of its target does: a pipeline is the same job whatever order runs
 * before it (the order is in its `dataops_run` facet's `target`).
 */
const NAMED_BY: Record<string, string[]> = { dataQualityPipeline: ['tableGroupId', 'testSuiteId'] };

/** A workflow's job name: its type and what it checks, e.g. `dataQualityPipeline.table_group=tg-1.test_suite=ts-1`. */
export function workflowJobName(w: LineageWorkflow): string {
  const path = targetPath(w.target, NAMED_BY[w.workflowType]);
  return path ? `${w.workflowType}.${path}` : w.workflowType;
}

/** What failed, by the failure's type: the remote job, the order's run, the gates, or the workflow itself. */
export function failureKind(type: string | undefined): FailureKind {
  if (type === 'JobFailed' || type === 'JobCanceled') return 'job';
  if (type === 'OrderFailed') return 'order_run';
  if (type === 'QualityGateFailed') return 'quality_gates';
  return 'workflow';
}

/**
 * The language of the system whose failure an `errorMessage` reports: the service's for a job's own failure, none
 * known for an order's run (its recipe's steps run anything), ours for what our workflow decided or met.
 */
function failureLanguage(kind: FailureKind, s: LineageSettings): string {
  if (kind === 'job') return s.serviceLanguage ?? 'Python';
  if (kind === 'order_run') return 'unknown';
  return 'TypeScript';
}

/** A remote job's name: its role and the one target it runs on. */
function remoteJobName(role: string, w: LineageWorkflow): string {
  const key = role === 'test_run' ? 'testSuiteId' : 'tableGroupId';
  const path = targetPath(w.target, [key]);
  return path ? `${role}.${path}` : role;
}

function facet(s: LineageSettings, schemaURL: string, body: Json): Json {
  return { _producer: producer(s), _schemaURL: schemaURL, ...body };
}

/** A table's dataset: its columns (schema facet), their profile (metrics) and the tests run on it (assertions). */
function tableDataset(table: TableFacts, s: LineageSettings): Json {
  const columns = table.columns ?? [];
  const facets: Json = {};
  if (columns.length)
    facets.schema = facet(s, FACET_SCHEMAS.schema, {
      fields: columns.map((c) => ({ name: c.name, ...(c.type ? { type: c.type } : {}) })),
    });
  const inputFacets: Json = {};
  const counts = columns.map((c) => c.count).filter((n): n is number => n !== undefined);
  if (columns.length)
    inputFacets.dataQualityMetrics = facet(s, FACET_SCHEMAS.dataQualityMetrics, {
      ...(counts.length ? { rowCount: Math.max(...counts) } : {}),
      columnMetrics: Object.fromEntries(
        columns.map((c) => [
          c.name,
          {
            ...(c.nullCount !== undefined ? { nullCount: c.nullCount } : {}),
            ...(c.distinctCount !== undefined ? { distinctCount: c.distinctCount } : {}),
            ...(c.count !== undefined ? { count: c.count } : {}),
          },
        ]),
      ),
    });
  if (table.assertions?.length)
    inputFacets.dataQualityAssertions = facet(s, FACET_SCHEMAS.dataQualityAssertions, {
      assertions: table.assertions,
    });
  return {
    namespace: table.dataset?.namespace ?? s.datasetNamespace ?? s.namespace,
    name: table.dataset?.name ?? (table.schema ? `${table.schema}.${table.table}` : table.table),
    facets,
    ...(Object.keys(inputFacets).length ? { inputFacets } : {}),
  };
}

/**
 * What a run reads: each table its jobs found, with their results, where the deployment lists them; none before they
 * are known (a START), nor where the deployment does not list them (its `dataops_run` facet names the table group).
 */
function inputs(s: LineageSettings, tables: TableFacts[] | undefined): Json[] {
  return (tables ?? []).map((table) => tableDataset(table, s));
}

function qualityFacet(f: LineageFacts | undefined, s: LineageSettings): Json | undefined {
  if (!f || (!f.profiling && !f.testRun && !f.gates)) return undefined;
  const summary = f.testRun ?? f.profiling;
  const p = f.profiling;
  return facet(s, facetSchemaUrl(s.producerVersion, 'DataopsQualityRunFacet'), {
    ...(summary ? { scorePercent: summary.scorePercent } : {}),
    ...(f.testRun ? { resultCounts: f.testRun.resultCounts } : {}),
    ...(p && !f.testRun
      ? {
          profiling: {
            tableCount: p.tableCount,
            columnCount: p.columnCount,
            recordCount: p.recordCount,
            hygieneIssues: p.hygieneIssues,
            potentialPii: p.potentialPii,
            dismissedIssues: p.dismissedIssues,
          },
        }
      : {}),
    ...(f.gates ? { gates: f.gates } : {}),
  });
}

/** The OpenLineage RunEvent of one transition; `tables`: what its job found in each table, where known. */
export function runEvent(t: LineageTransition, s: LineageSettings, tables?: TableFacts[]): Json {
  const w = t.workflow;
  const parentJob = { namespace: s.namespace, name: workflowJobName(w) };
  // A job's own FAIL is its failure; a run's names its type.
  const failure =
    t.eventType === 'FAIL'
      ? t.job
        ? { kind: 'job' as const, type: 'JobFailed' }
        : { kind: failureKind(t.failureType), type: t.failureType ?? 'WorkflowFailed' }
      : undefined;
  const runFacets: Json = {
    dataops_run: facet(s, facetSchemaUrl(s.producerVersion, 'DataopsRunFacet'), {
      workflowType: w.workflowType,
      workflowId: w.workflowId,
      workflowRunId: w.runId,
      ...(t.job ? { role: t.job.role, jobId: t.job.jobId } : {}),
      ...(t.job?.url ? { url: t.job.url } : {}),
      ...(t.facts?.orderId ? { orderId: t.facts.orderId } : {}),
      ...(t.facts?.orderRun ? { orderRunId: t.facts.orderRun.orderRunId } : {}),
      ...(t.facts?.orderRun?.url ? { orderRunUrl: t.facts.orderRun.url } : {}),
      ...(t.facts?.orderRun?.status ? { orderRunStatus: t.facts.orderRun.status } : {}),
      ...(Object.keys(w.target).length ? { target: w.target } : {}),
      ...(failure ? { failure } : {}),
    }),
  };
  if (t.job) runFacets.parent = facet(s, FACET_SCHEMAS.parent, { run: { runId: w.runId }, job: parentJob });
  const quality = qualityFacet(t.facts, s);
  if (quality) runFacets.dataops_quality = quality;
  if (failure)
    runFacets.errorMessage = facet(s, FACET_SCHEMAS.errorMessage, {
      message: t.error ?? `${failure.type} (no message)`,
      programmingLanguage: failureLanguage(failure.kind, s),
    });
  return {
    eventType: t.eventType,
    eventTime: t.at,
    producer: producer(s),
    schemaURL: RUN_EVENT_SCHEMA,
    run: { runId: t.job ? jobRunId(s.namespace, t.job.role, t.job.jobId) : w.runId, facets: runFacets },
    job: {
      namespace: s.namespace,
      name: t.job ? remoteJobName(t.job.role, w) : parentJob.name,
      facets: {
        jobType: facet(s, FACET_SCHEMAS.jobType, {
          processingType: 'BATCH',
          integration: 'DATAOPS_TEMPORAL',
          jobType: t.job ? t.job.role.toUpperCase() : 'WORKFLOW',
        }),
      },
    },
    inputs: inputs(s, tables),
    outputs: [],
  };
}
