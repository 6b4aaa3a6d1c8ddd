/**
 * One OpenLineage event of each kind our lineage activity makes, built directly from transitions: job and run
 * starts, completions with tables (named by their connection), assertions and metrics, each kind of failure (a job's,
 * an order run's, the gates', the workflow's), aborts. Checked by the OpenLineage Python client
 * (test/lineage/openlineage-client.test.ts) and by the official JSON Schemas (test/lineage/official-schemas.test.ts).
 */
import type { LineageTransition } from '../../src/contract/lineage.js';
import { runEvent } from '../../src/lineage/events.js';
import type { Datasource } from '../../src/lineage/naming.js';

export const settings = { namespace: 'temporal://quality-prod', producerVersion: '1.0.0-rc.1' };
export const workflow = {
  workflowType: 'dataQualityPipeline',
  workflowId: 'nightly-finance',
  runId: '0b7c1c7e-5d8e-4a47-9a51-3f0b7c1c7e5d',
  target: { tableGroupId: 'tg-1', testSuiteId: 'ts-1' },
};
export const SUMMARY = {
  jobId: 'c2a1d7f0-0d1e-4c55-9d0e-6f6b3b1a2c3d',
  status: 'completed',
  testSuiteId: 'ts-1',
  tableGroupId: 'tg-1',
  startedAt: '2026-11-26T01:00:00.000Z',
  completedAt: '2026-11-26T01:02:00.000Z',
  scorePercent: 98.7,
  resultCounts: { passed: 10, failed: 1, warning: 0, error: 0, log: 1, dismissed: 0 },
};

export const PROFILING = {
  jobId: 'e1b2c3d4-0000-4000-8000-000000000001',
  status: 'completed',
  tableGroupId: 'tg-1',
  startedAt: '2026-11-26T00:50:00.000Z',
  completedAt: '2026-11-26T00:55:00.000Z',
  scorePercent: 91.5,
  tableCount: 1,
  columnCount: 2,
  recordCount: 1200,
  hygieneIssues: { definite: 1, likely: 0, possible: 2 },
  potentialPii: { high: 0, moderate: 1 },
  dismissedIssues: 0,
};

/** One event of each kind the activity makes, built directly. */
export function eachKind(): Record<string, unknown>[] {
  const at = '2026-11-26T01:02:03.000Z';
  const job = { role: 'test_run', jobId: SUMMARY.jobId, url: 'http://ui:8501/test-runs:results?run_id=x' };
  const transitions: [LineageTransition, Parameters<typeof runEvent>[2]?][] = [
    [
      { eventType: 'COMPLETE', at, workflow, job, facts: { testRun: SUMMARY } },
      [
        {
          schema: 'finance',
          table: 'ledger',
          dataset: { namespace: 'postgres://warehouse.example:5432', name: 'dw.finance.ledger' },
          assertions: [
            { assertion: 'Missing_Pct', success: true, column: 'amount', name: 'amount: Percent Missing' },
            { assertion: 'Dupe_Rows', success: false, severity: 'error', name: 'Duplicate Rows' },
          ],
        },
      ],
    ],
    [
      {
        eventType: 'COMPLETE',
        at,
        workflow,
        job: { role: 'profiling', jobId: 'e1b2c3d4-0000-4000-8000-000000000001' },
        facts: { profiling: PROFILING },
      },
      [
        {
          schema: 'finance',
          table: 'ledger',
          columns: [
            { name: 'id', type: 'bigint', count: 1200, nullCount: 0, distinctCount: 1200 },
            { name: 'amount', type: 'numeric(12,2)', count: 1200, nullCount: 3, distinctCount: 870 },
          ],
        },
      ],
    ],
    [{ eventType: 'FAIL', at, workflow, job: { role: 'profiling', jobId: 'p-1' }, error: 'relation does not exist' }],
    [{ eventType: 'START', at, workflow }],
    [{ eventType: 'START', at, workflow, job: { role: 'generation', jobId: 'g-1' } }],
    [{ eventType: 'COMPLETE', at, workflow, job: { role: 'generation', jobId: 'g-1' } }],
    [{ eventType: 'ABORT', at, workflow, job: { role: 'test_run', jobId: SUMMARY.jobId } }],
    [{ eventType: 'ABORT', at, workflow }],
    [
      {
        eventType: 'FAIL',
        at,
        workflow,
        facts: { testRun: SUMMARY, gates: { passed: false, violations: ['score 98.7% < 99%'] } },
        error: 'quality gates failed: score 98.7% < 99%',
        failureType: 'QualityGateFailed',
        inputJobs: [{ role: 'test_run', jobId: SUMMARY.jobId }],
      },
      [{ schema: 'finance', table: 'ledger', dataset: { namespace: 'bigquery', name: 'acme-dw.finance.ledger' } }],
    ],
    [{ eventType: 'FAIL', at, workflow, error: 'table group tg-1 not found', failureType: 'NotFound' }],
    [
      {
        eventType: 'FAIL',
        at,
        workflow: { ...workflow, workflowType: 'runOrder', target: { kitchen: 'k', recipe: 'r', variation: 'v' } },
        facts: { orderId: 'o-2', orderRun: { orderRunId: 'r-2', status: 'SERVING_ERROR' } },
        error: 'the run r-2 of order o-2 ended SERVING_ERROR',
        failureType: 'OrderFailed',
      },
    ],
    [
      {
        eventType: 'COMPLETE',
        at,
        workflow,
        facts: { testRun: SUMMARY, gates: { passed: false, violations: ['score 98.7% < 99%'] } },
      },
    ],
    [
      {
        eventType: 'COMPLETE',
        at,
        workflow: { ...workflow, workflowType: 'runOrder', target: {} },
        facts: {
          orderId: 'o-1',
          orderRun: { orderRunId: 'r-1', url: 'http://dataops.example/#/orders/acme/production/runs/r-1' },
        },
      },
    ],
  ];
  return transitions.map(([t, tables]) => runEvent(t, settings, tables));
}

/** The connection type, its settings as TestGen shows them (and ours), and the name of `finance.ledger`. */
export const FLAVOURS: [string, Datasource, string, string][] = [
  [
    'PostgreSQL',
    { type: 'PostgreSQL', host: 'pg.example.com', port: '5432', database: 'dw' },
    'postgres://pg.example.com:5432',
    'dw.finance.ledger',
  ],
  [
    'Snowflake',
    { type: 'Snowflake', host: 'acme-analytics.snowflakecomputing.com', port: '443', database: 'DW' },
    'snowflake://acme-analytics',
    'DW.finance.ledger',
  ],
  ['BigQuery', { type: 'Google BigQuery', project: 'acme-dw' }, 'bigquery', 'acme-dw.finance.ledger'],
  [
    'Redshift',
    {
      type: 'Amazon Redshift',
      host: 'warehouse.c1x2y3.eu-west-1.redshift.amazonaws.com',
      port: '5439',
      database: 'dev',
    },
    'redshift://warehouse.eu-west-1:5439',
    'dev.finance.ledger',
  ],
  [
    'SQL Server',
    { type: 'Microsoft SQL Server', host: 'sql.example.com', database: 'sales' },
    'mssql://sql.example.com:1433',
    'sales.finance.ledger',
  ],
  [
    'Databricks',
    { type: 'Databricks', host: 'adb-123.azuredatabricks.net', port: '443', database: 'main' },
    'databricks://adb-123.azuredatabricks.net',
    'main.finance.ledger',
  ],
  [
    'Azure SQL Database',
    { type: 'Azure SQL Database', host: 'acme.database.windows.net', port: '1433', database: 'ops' },
    'mssql://acme.database.windows.net:1433',
    'ops.finance.ledger',
  ],
  [
    'Azure Synapse',
    { type: 'Azure Synapse Analytics', host: 'acme.sql.azuresynapse.net', port: '1433', database: 'pool1' },
    'sqlserver://acme.sql.azuresynapse.net:1433',
    'finance.ledger',
  ],
  [
    'Oracle',
    { type: 'Oracle', host: 'ora.example.com', database: 'ORCLPDB1' },
    'oracle://ora.example.com:1521',
    'ORCLPDB1.finance.ledger',
  ],
];
