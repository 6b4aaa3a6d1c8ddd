/**
 * Lineage and links against TestGen 5.134, with the real worker configured as an operator would (DATAOPS_LINEAGE=file,
 * DATAOPS_SERVICE_UI_URL at TestGen's UI): a pipeline's events carry TestGen's real results (the profiling run's
 * record count and findings, the test run's per-test outcomes from `GET test-runs/{id}/results`, the score), each
 * table is named as OpenLineage names it in the database TestGen's connection reaches, each job links to its page in
 * TestGen's UI, every event is valid by the official OpenLineage schemas, and the OpenLineage Python client parses
 * every event.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { ServiceClient } from '../../src/api/index.js';
import { localServersConfig } from '../../src/config/local-servers.js';
import type { DataQualityPipelineResult } from '../../src/contract/index.js';
import { readEvents } from '../helpers/lineage.js';
import { needing } from '../helpers/needs.js';
import { runProcess } from '../helpers/processes.js';
import { startDevServerEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';
import { testGenNeed, startTestGen, type TestGenPeer } from '../helpers/testgen.js';
import { startPeerWorker, type PeerWorker } from '../helpers/peer-worker.js';

const polling = { pollIntervalMs: 500, maxPollIntervalMs: 1_000 };
/** The host name an operator gives TestGen standalone's embedded database (DATAOPS_LINEAGE_CONNECTIONS). */
const EMBEDDED_HOST = 'testgen-db.internal';

describe(
  'lineage and links against TestGen 5.134 (peer)',
  ...needing(testGenNeed(), () => {
    let t: TestEnv;
    let peer: TestGenPeer;
    let client: ServiceClient;
    let worker: PeerWorker;
    let lineageFile: string;

    before(async () => {
      [t, peer] = await Promise.all([startDevServerEnv(), startTestGen()]);
      client = new ServiceClient({ baseUrl: peer.url, apiBearer: { type: 'oauth', ...(await peer.authorize()) } });
      worker = await startPeerWorker(t, peer, await peer.authorize(), (work) => {
        lineageFile = join(work, 'lineage', 'events.jsonl');
        return {
          DATAOPS_LINEAGE: 'file',
          DATAOPS_LINEAGE_FILE: lineageFile,
          DATAOPS_SERVICE_UI_URL: peer.uiUrl,
          // TestGen standalone shows its embedded database's host as `<embedded>`: the operator names it.
          DATAOPS_LINEAGE_CONNECTIONS: JSON.stringify({ '*': { host: EMBEDDED_HOST } }),
        };
      });
    });
    after(async () => {
      await worker?.stop();
      client?.close();
      await peer?.close();
      await t?.env.teardown();
    });

    test("a pipeline's events carry TestGen's results and links, and the OpenLineage client parses them", async (ctx) => {
      const handle = await t.env.client.workflow.start('dataops.dataQualityPipeline', {
        taskQueue: worker.taskQueue,
        workflowId: `peer-lineage-${uniqueTaskQueue('wf')}`,
        args: [
          {
            ...polling,
            tableGroupId: peer.demo.tableGroupId,
            testSuiteId: peer.demo.testSuiteId,
            testGeneration: 'skip',
            onGateFailure: 'report',
          },
        ],
      });
      const result = (await handle.result()) as DataQualityPipelineResult;
      await worker.deps.lineage?.emitter.flush(60_000);
      const events = readEvents(lineageFile);
      const profilingId = result.profiling.job.jobId;
      const testRunId = result.testRun.job.jobId;
      const end = (runId: string) => events.find((e) => e.run.runId === runId && e.eventType === 'COMPLETE');

      // The links: TestGen's own pages of each run (the paths its notification e-mails link to), which its UI serves.
      assert.equal(result.profiling.job.url, `${peer.uiUrl}/profiling-runs:results?run_id=${profilingId}`);
      assert.equal(result.testRun.job.url, `${peer.uiUrl}/test-runs:results?run_id=${testRunId}`);
      for (const url of [result.profiling.job.url, result.testRun.job.url]) {
        const page = await fetch(url);
        assert.equal(page.status, 200, `TestGen's UI answers ${url}`);
      }

      // Profiling: each table of the table group, with its columns (types, null and distinct counts) as TestGen
      // profiled them.
      const profiling = end(profilingId);
      assert.ok(profiling, 'the profiling run COMPLETE');
      assert.equal(profiling.run.facets.dataops_run?.url, result.profiling.job.url);
      assert.equal(profiling.inputs.length, result.profiling.summary.tableCount, 'one dataset per table');
      const columns = profiling.inputs.flatMap((d) => {
        const metrics = d.inputFacets?.dataQualityMetrics as { columnMetrics: Record<string, { nullCount?: number }> };
        return Object.values(metrics.columnMetrics);
      });
      assert.equal(columns.length, result.profiling.summary.columnCount, 'every column TestGen profiled');
      assert.ok(columns.every((c) => typeof c.nullCount === 'number'));
      // Each table named as OpenLineage names a PostgreSQL table (the demo's database), from the connection
      // TestGen shows for the table group: what dbt's or Airflow's events for the same table name it.
      const listed = await client.profilingRuns.columns(profilingId, 1, 100);
      const first = listed.items[0]!;
      const group = await client.tableGroups.get(peer.demo.tableGroupId);
      const connection = await client.connections.get(String(group.connection_id));
      assert.equal(connection.connection_type, 'PostgreSQL', "TestGen's demo connection");
      const s = connection.settings as { host: string; port?: string; database: string };
      assert.equal(s.host, '<embedded>', 'TestGen standalone: its embedded database, which has no host name');
      assert.deepEqual(
        Object.keys(s).filter((k) => /password|secret|token|private/.test(k)),
        [],
        `TestGen shows no credential: ${JSON.stringify(connection)}`,
      );
      const namespace = `postgres://${EMBEDDED_HOST}:${s.port ?? '5432'}`;
      assert.ok(
        profiling.inputs.every((d) => d.namespace === namespace),
        `every table in ${namespace}: ${JSON.stringify(profiling.inputs.map((d) => d.namespace))}`,
      );
      assert.ok(
        profiling.inputs.some((d) => d.name === `${s.database}.${first.schema_name}.${first.table_name}`),
        `named {database}.{schema}.{table}: ${profiling.inputs.map((d) => d.name).join(', ')}`,
      );
      const counted = profiling.run.facets.dataops_quality?.profiling as { tableCount: number };
      assert.equal(counted.tableCount, result.profiling.summary.tableCount);

      // The test run: one assertion per active result TestGen lists, on its table, failing where TestGen says so.
      const testRun = end(testRunId);
      assert.ok(testRun, 'the test run COMPLETE');
      const results = await client.testRuns.results(testRunId, 1, 100);
      const assertions = testRun.inputs.flatMap(
        (d) => (d.inputFacets?.dataQualityAssertions?.assertions ?? []) as { assertion: string; success: boolean }[],
      );
      assert.equal(assertions.length, Math.min(results.total, 2_000), 'every result TestGen lists, up to 2,000');
      const c = result.testRun.summary.resultCounts!;
      assert.equal(
        assertions.filter((a) => !a.success).length,
        c.failed + c.warning + c.error,
        'failed, warning and error results are the failed assertions',
      );
      assert.ok(
        assertions.every((a) => a.assertion.length > 0),
        "each names TestGen's test type",
      );
      const quality = testRun.run.facets.dataops_quality as { scorePercent: number | null; resultCounts: unknown };
      assert.equal(quality.scorePercent, result.testRun.summary.scorePercent);
      assert.deepEqual(quality.resultCounts, c);

      // The pipeline's own run: START, then COMPLETE, or FAIL where the gates failed (reported, so the workflow
      // completed); its end lists the tables its jobs found, by the same names.
      const pipeline = events.filter((e) => e.run.runId === handle.firstExecutionRunId);
      assert.deepEqual(
        pipeline.map((e) => e.eventType),
        ['START', result.gates.passed ? 'COMPLETE' : 'FAIL'],
      );
      const names = (e: (typeof events)[number]) => e.inputs.map((d) => `${d.namespace}/${d.name}`).sort();
      assert.deepEqual(names(pipeline[1]!), names(profiling));

      // A real consumer parses each of them.
      const venv = readFileSync(join(localServersConfig().cacheDir, 'openlineage.path'), 'utf8').trim();
      assert.ok(existsSync(join(venv, 'bin', 'python')), 'npm test installs the OpenLineage client');
      const checked = await runProcess(
        join(venv, 'bin', 'python'),
        [
          fileURLToPath(new URL('../../../test/lineage/check_events.py', import.meta.url)),
          lineageFile,
          fileURLToPath(new URL('../../../contract/lineage/', import.meta.url)),
        ],
        {},
      );
      assert.equal(checked.code, 0, checked.out);
      // What a catalog receives, trimmed, in the run's output.
      const trimmed = { ...testRun, inputs: testRun.inputs.slice(0, 1) };
      const shown = trimmed.inputs[0]?.inputFacets?.dataQualityAssertions as { assertions: unknown[] } | undefined;
      if (shown) shown.assertions = shown.assertions.slice(0, 2);
      ctx.diagnostic(`the test run's COMPLETE event, trimmed: ${JSON.stringify(trimmed)}`);
      ctx.diagnostic(`events: ${events.map((e) => `${e.eventType} ${e.job.name}`).join('; ')}`);
      ctx.diagnostic(`datasets: ${names(pipeline[1]!).join(', ')}`);
    });
  }),
);
