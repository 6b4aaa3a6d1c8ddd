import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isTerminalJobStatus, type ServiceClient } from '../../src/api/index.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { clientFor, startTestSimulator } from '../helpers/sim.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;

describe('ServiceClient endpoints', () => {
  let sim: RunningSimulator;
  let client: ServiceClient;
  before(async () => {
    ({ sim } = await startTestSimulator({ jobDurations: { pendingMs: 0, claimMs: 0, runMs: 0, cancelMs: 0 } }));
    client = await clientFor(sim);
  });
  after(async () => {
    client?.close();
    await sim?.close();
  });

  test('login checks the credentials and returns who and until when, never the token', async () => {
    const who = await client.login();
    assert.equal(who.username, 'alice');
    assert.ok(Date.parse(who.expiresAt ?? '') > Date.now() + 3.9 * 3_600_000);
    assert.deepEqual(Object.keys(who).sort(), ['expiresAt', 'username']);
    assert.equal(await client.validateToken(), true);
  });

  test('orders: create with overrides, list runs, run status, stop', async () => {
    const created = await client.orders.create({
      kitchen: 'production',
      recipe: 'load-warehouse',
      variation: 'backfill',
      parameters: { source_data_date: '2026-06-30', alert_email: 'dq@example.com' },
    });
    assert.match(created.order_id, /^[0-9a-f-]{36}$/);
    assert.equal(created.status, 'success');
    assert.deepEqual(created.variable_overrides, { source_data_date: '2026-06-30', alert_email: 'dq@example.com' });
    const runs = await client.orders.runs('production', created.order_id);
    assert.equal(runs.length, 1);
    const run = await client.orders.runStatus('production', runs[0]!.hid);
    assert.equal(run.hid, runs[0]!.hid);
    assert.equal(typeof run.status, 'string');
    await client.orders.stopRun(run.hid);
    assert.equal((await client.orders.runStatus('production', run.hid)).status, 'STOPPED_SERVING');
    const other = await client.orders.create({ kitchen: 'production', recipe: 'refresh-marts', variation: 'full' });
    await client.orders.stop(other.order_id);
    const stopped = await client.orders.runs('production', other.order_id);
    assert.equal(stopped[0]!.status, 'STOPPED_SERVING');
  });

  test('profiling runs and test runs: submit, get, summary with parsed timestamps', async () => {
    const p = await client.profilingRuns.submit(TG.sales);
    assert.match(p.id, /^[0-9a-f-]{36}$/);
    assert.match(p.created_at ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const job = await client.jobs.get(p.id);
    assert.equal(job.status, 'completed');
    assert.equal(job.job_key, 'run-profile');
    assert.equal(job.error_message, null);
    assert.ok(job.started_at && job.claimed_at && job.completed_at);
    assert.equal(job.project_code, 'DEMO', 'unknown fields pass through');
    assert.equal('table_group_id' in job, false, 'as on TestGen 5.134, a job object names no target');
    const ps = await client.profilingRuns.summary(p.id);
    assert.deepEqual(ps.result?.issue_counts, {
      hygiene_issues: { definite: 1, likely: 2, possible: 3 },
      potential_pii: { high: 1, moderate: 1 },
      dismissed: 1,
    });
    assert.equal(ps.result?.record_ct, 155_000);

    const t = await client.testRuns.submit(TS.financeProd);
    const ts = await client.testRuns.summary(t.id);
    assert.deepEqual(ts.result, {
      score: 0.333, // the client passes the deployment's own unit through; activities convert to percent
      result_counts: { passed: 1, failed: 1, warning: 0, error: 1, log: 0, dismissed: 1 },
    });
    assert.equal(ts.test_suite_id, TS.financeProd);
  });

  test('jobs: cancel and list', async () => {
    sim.controls.setJobDurations({ pendingMs: 60_000 });
    try {
      const { id } = await client.testRuns.submit(TS.salesProd);
      const canceled = await client.jobs.cancel(id);
      assert.equal(canceled.status, 'cancel_requested');
      assert.equal(isTerminalJobStatus(canceled.status), false);
      const list = await client.jobs.list('DEMO', { job_key: 'run-tests', limit: 5 });
      assert.equal(list.limit, 5);
      assert.equal(list.items[0]?.id, id);
      assert.ok(list.total >= 2);
    } finally {
      sim.controls.setJobDurations({ pendingMs: 0 });
    }
  });

  test('test definitions: export with the three filters, import with config and payload', async () => {
    const file = await client.testDefinitions.export(TS.salesDev, {
      origin: 'auto',
      table_name: 'orders',
      test_type: 'Avg_Shift',
    });
    assert.equal(file.version, 1);
    assert.equal(file.definitions.length, 1);
    assert.equal(file.definitions[0]?.baseline_sd, '12.7', 'unknown fields pass through');
    const result = await client.testDefinitions.import(
      TS.salesProd,
      { mode: 'preview', on_match: 'overwrite_unlocked', on_new: 'create', on_absence: 'do_nothing' },
      file,
    );
    assert.deepEqual(result.summary, { created: 1, updated: 0, skipped: 0, deleted: 0 });
    assert.deepEqual(result.items, [{ action: 'create', reason: 'no_match', tds: [{ idx: 0, target_id: null }] }]);
  });

  test('health', async () => {
    assert.equal((await client.health()).status, 'ok');
  });

  test('isTerminal is true only for completed, error and canceled', () => {
    for (const s of ['completed', 'error', 'canceled']) assert.equal(isTerminalJobStatus(s), true, s);
    for (const s of [
      'pending',
      'claimed',
      'running',
      'cancel_requested',
      'interrupt_requested',
      'interrupted',
      'paused',
      'cancelled',
      'COMPLETED',
      '',
    ])
      assert.equal(isTerminalJobStatus(s), false, s);
  });
});

describe('ServiceClient with deployed variants', () => {
  test('the deployed summary shapes normalise to the spec shape; PII counts become null', async () => {
    const { sim } = await startTestSimulator({
      jobDurations: { pendingMs: 0, claimMs: 0, runMs: 0 },
      variants: { summaryShape: 'deployed' },
    });
    const client = await clientFor(sim);
    try {
      const t = await client.testRuns.submit(TS.financeProd);
      assert.deepEqual((await client.testRuns.summary(t.id)).result?.result_counts, {
        passed: 1,
        failed: 1,
        warning: 0,
        error: 1,
        log: 0,
        dismissed: 1,
      });
      const p = await client.profilingRuns.submit(TG.sales);
      assert.deepEqual((await client.profilingRuns.summary(p.id)).result?.issue_counts, {
        hygiene_issues: { definite: 1, likely: 2, possible: 3 },
        potential_pii: null,
        dismissed: 1,
      });
    } finally {
      client.close();
      await sim.close();
    }
  });

  test('a summary without results yet parses with result null', async () => {
    const { sim } = await startTestSimulator({ jobDurations: { pendingMs: 60_000 } });
    const client = await clientFor(sim);
    try {
      const t = await client.testRuns.submit(TS.financeProd);
      const s = await client.testRuns.summary(t.id);
      assert.equal(s.result, null);
      assert.equal(s.started_at, null);
    } finally {
      client.close();
      await sim.close();
    }
  });

  for (const key of ['serving_hid', 'order_id', 'serving_chronos_id'] as const) {
    test(`the order id comes back as order_id when the deployment says ${key}`, async () => {
      const { sim } = await startTestSimulator({ variants: { orderIdKey: key } });
      const client = await clientFor(sim);
      try {
        const created = await client.orders.create({
          kitchen: 'staging',
          recipe: 'load-warehouse',
          variation: 'daily',
        });
        assert.match(created.order_id, /^[0-9a-f-]{36}$/);
        assert.equal(sim.controls.orders()[0]?.id, created.order_id);
      } finally {
        client.close();
        await sim.close();
      }
    });
  }

  test('an export without version reads as version 1', async () => {
    const { sim } = await startTestSimulator({ variants: { omitExportVersion: true } });
    const client = await clientFor(sim);
    try {
      assert.equal((await client.testDefinitions.export(TS.salesProd)).version, 1);
    } finally {
      client.close();
      await sim.close();
    }
  });
});
