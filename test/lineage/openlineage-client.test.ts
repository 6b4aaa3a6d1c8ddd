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
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { fileLineage } from '../helpers/lineage.js';
import { eachKind, FLAVOURS } from '../helpers/lineage-samples.js';
import { namingOf } from '../../src/lineage/naming.js';
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

    test("dataset names agree with the client's own naming helpers, for each type it has one for", async () => {
      // The client's class for each of our cases, with the arguments it takes (TestGen's settings, as it names them).
      const oracle = `
import json, sys
from openlineage.client.naming import dataset as n
cases = {
  "PostgreSQL": n.Postgres(host="pg.example.com", port="5432", database="dw", schema="finance", table="ledger"),
  "Snowflake": n.Snowflake(organization_name="acme", account_name="analytics", database="DW", schema="finance", table="ledger"),
  "BigQuery": n.BigQuery(project_id="acme-dw", dataset_name="finance", table_name="ledger"),
  "Redshift": n.Redshift(cluster_identifier="warehouse", region="eu-west-1", port="5439", database="dev", schema="finance", table="ledger"),
  "Azure Synapse": n.AzureSynapse(host="acme.sql.azuresynapse.net", port="1433", schema="finance", table="ledger"),
  "Oracle": n.Oracle(host="ora.example.com", port="1521", service_name="ORCLPDB1", schema="finance", table="ledger"),
}
print(json.dumps({k: [v.get_namespace(), v.get_name()] for k, v in cases.items()}))
`;
      const res = await runProcess(join(venv ?? '', 'bin', 'python'), ['-c', oracle], {});
      assert.equal(res.code, 0, res.out);
      const theirs = JSON.parse(res.out.trim().split('\n').at(-1)!) as Record<string, [string, string]>;
      assert.equal(Object.keys(theirs).length, 6);
      for (const [what, [namespace, name]] of Object.entries(theirs)) {
        const ours = FLAVOURS.find(([w]) => w === what);
        assert.ok(ours, what);
        const naming = namingOf(ours[1]);
        assert.ok(!('problem' in naming), what);
        assert.deepEqual(naming('finance', 'ledger'), { namespace, name }, what);
      }
    });

    test('an event of each kind parses: tables with assertions, columns and metrics, a failure message, a verdict, an order', async () => {
      const res = await check(eachKind().map((e) => JSON.stringify(e)));
      assert.equal(res.code, 0, res.out);
    });

    test('the check refuses a wrong facet version, a run id that is no UUID, an unknown key, a bad custom facet', async () => {
      const [good] = eachKind().map((e) => JSON.stringify(e)) as [string];
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
