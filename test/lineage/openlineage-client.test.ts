/**
 * Our OpenLineage events as a real consumer reads them: every event parses with the OpenLineage Python client
 * (openlineage-python from PyPI, installed by scripts/install-openlineage.sh), whose generated classes are the spec's
 * JSON Schemas of its version, and our custom facets validate against their JSON Schemas (test/lineage/
 * check_events.py). The events are a real pipeline's on the simulator, a cancelled and a failed run's, and one of
 * each kind made directly (a test run's per-test assertions, a failure's message, an order). Broken copies show that
 * the check refuses what it should.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { localServersConfig } from '../../src/config/local-servers.js';
import { progressQuery } from '../../src/contract/index.js';
import type { LineageTransition } from '../../src/contract/lineage.js';
import { runEvent } from '../../src/lineage/events.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { fileLineage } from '../helpers/lineage.js';
import { needing } from '../helpers/needs.js';
import { runProcess } from '../helpers/processes.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startTimeSkippingEnv, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const checker = fileURLToPath(new URL('../../../test/lineage/check_events.py', import.meta.url));
const schemas = fileURLToPath(new URL('../../../contract/lineage/', import.meta.url));
const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const FAST = { pendingMs: 50, claimMs: 20, runMs: 100, cancelMs: 50, interruptMs: 50 };
const base = { pollIntervalMs: 100, maxPollIntervalMs: 200 };

function installedVenv(): string | undefined {
  try {
    return readFileSync(join(localServersConfig().cacheDir, 'openlineage.path'), 'utf8').trim();
  } catch {
    return undefined;
  }
}
const venv = installedVenv();
const need = {
  what: 'the OpenLineage Python client (openlineage-python, jsonschema)',
  missing: venv ? undefined : `no environment in ${localServersConfig().cacheDir}`,
  install: 'npm run install-openlineage (Python >= 3.11 and PyPI; it says why when it cannot)',
};

/** Runs the checker on JSON lines; its exit code and output. */
async function check(lines: string[]): Promise<{ code: number | null; out: string }> {
  const file = join(mkdtempSync(join(tmpdir(), 'ol-check-')), 'events.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return runProcess(join(venv ?? '', 'bin', 'python'), [checker, file, schemas], {});
}

const settings = { namespace: 'dataops://testgen.example:8510', producerVersion: '1.0.0-rc.1' };
const workflow = {
  workflowType: 'dataQualityPipeline',
  workflowId: 'nightly-finance',
  runId: '0b7c1c7e-5d8e-4a47-9a51-3f0b7c1c7e5d',
  target: { tableGroupId: 'tg-1', testSuiteId: 'ts-1' },
};
const SUMMARY = {
  jobId: 'c2a1d7f0-0d1e-4c55-9d0e-6f6b3b1a2c3d',
  status: 'completed',
  testSuiteId: 'ts-1',
  tableGroupId: 'tg-1',
  startedAt: '2026-11-26T01:00:00.000Z',
  completedAt: '2026-11-26T01:02:00.000Z',
  scorePercent: 98.7,
  resultCounts: { passed: 10, failed: 1, warning: 0, error: 0, log: 1, dismissed: 0 },
};

const PROFILING = {
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
function eachKind(): string[] {
  const at = '2026-11-26T01:02:03.000Z';
  const job = { role: 'test_run', jobId: SUMMARY.jobId, url: 'http://ui:8501/test-runs:results?run_id=x' };
  const transitions: [LineageTransition, Parameters<typeof runEvent>[2]?][] = [
    [
      { eventType: 'COMPLETE', at, workflow, job, facts: { testRun: SUMMARY } },
      [
        {
          schema: 'finance',
          table: 'ledger',
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
  return transitions.map(([t, assertions]) => JSON.stringify(runEvent(t, settings, assertions)));
}

describe(
  'our OpenLineage events, read by the OpenLineage Python client',
  ...needing(need, () => {
    let t: TestEnv;
    let sim: RunningSimulator;
    before(async () => {
      t = await startTimeSkippingEnv();
      ({ sim } = await startTestSimulator({ jobDurations: FAST }));
    });
    after(async () => {
      await sim?.close();
      await t?.env.teardown();
    });

    test('a pipeline, a cancelled run and a failed run send events the client parses', async () => {
      const { deps, file, emitter } = fileLineage(await simDeps(sim));
      await withProjectWorker(t.env, deps, async (taskQueue) => {
        await t.env.client.workflow.execute('dataops.dataQualityPipeline', {
          taskQueue,
          workflowId: `ol-pipeline-${taskQueue}`,
          args: [{ ...base, tableGroupId: TG.finance, testSuiteId: TS.financeProd, testGeneration: 'skip' }],
        });
        sim.controls.planJobs({ job_key: 'run-tests', target_id: TS.financeProd, fail_with: 'disk full' });
        await assert.rejects(
          t.env.client.workflow.execute('dataops.runTestSuite', {
            taskQueue,
            workflowId: `ol-fail-${taskQueue}`,
            args: [{ ...base, testSuiteId: TS.financeProd }],
          }),
          WorkflowFailedError,
        );
        sim.controls.planJobs({ job_key: 'run-tests', target_id: TS.financeProd, durations: { runMs: 600_000 } });
        const handle = await t.env.client.workflow.start('dataops.runTestSuite', {
          taskQueue,
          workflowId: `ol-cancel-${taskQueue}`,
          args: [{ ...base, testSuiteId: TS.financeProd }],
        });
        await eventually('the job known', async () => (await handle.query(progressQuery)).jobs[0]?.jobId);
        await handle.cancel();
        await assert.rejects(handle.result(), WorkflowFailedError);
      });
      await emitter.flush(10_000);
      const lines = readFileSync(file, 'utf8').trim().split('\n');
      const types = lines.map((l) => (JSON.parse(l) as { eventType: string }).eventType);
      for (const type of ['START', 'COMPLETE', 'FAIL', 'ABORT']) assert.ok(types.includes(type), `a ${type} event`);
      const res = await check(lines);
      assert.equal(res.code, 0, res.out);
      assert.match(res.out, new RegExp(`${lines.length} events parsed by openlineage-python`));
    });

    test('an event of each kind parses: tables with assertions, columns and metrics, a failure message, a verdict, an order', async () => {
      const res = await check(eachKind());
      assert.equal(res.code, 0, res.out);
    });

    test('the check refuses a wrong facet version, a run id that is no UUID, an unknown key, a bad custom facet', async () => {
      const [good] = eachKind() as [string];
      const broken: [string, (e: Record<string, any>) => void, RegExp][] = [
        [
          'facet version',
          (e) => (e.run.facets.parent._schemaURL = e.run.facets.parent._schemaURL.replace('1-2-0', '1-0-0')),
          /is no facet of openlineage-python/,
        ],
        ['run id', (e) => (e.run.runId = 'job-1'), /Run refuses it/],
        ['unknown key', (e) => (e.run.facets.parent.job.nmae = 'x'), /has no field nmae/],
        ['custom facet', (e) => (e.run.facets.dataops_quality.scorePercent = 'high'), /dataops_quality: 'high' is not/],
      ];
      for (const [what, breakIt, message] of broken) {
        const e = JSON.parse(good) as Record<string, any>;
        breakIt(e);
        const res = await check([JSON.stringify(e)]);
        assert.equal(res.code, 1, `${what}: refused`);
        assert.match(res.out, message, what);
      }
    });
  }),
);
