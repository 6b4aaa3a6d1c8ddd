import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SEED_IDS } from '../../src/simulator/index.js';
import { FROZEN, startTestSimulator, type SimHttp } from '../helpers/sim.js';
import type { RunningSimulator } from '../../src/simulator/index.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;

describe('simulator job engine', () => {
  let sim: RunningSimulator;
  let http: SimHttp;
  before(async () => {
    ({ sim, http } = await startTestSimulator({ jobDurations: FROZEN, manualClock: true }));
  });
  after(async () => sim?.close());

  const submitProfile = async (tg: string = TG.finance) => {
    const res = await http.as('admin', 'POST', `/api/v1/table-groups/${tg}/profiling-runs`);
    assert.equal(res.status, 202);
    assert.match(res.body.id, /^[0-9a-f-]{36}$/);
    assert.ok(!Number.isNaN(Date.parse(res.body.created_at)));
    return res.body.id as string;
  };
  const submitTests = async (ts: string = TS.financeProd) => {
    const res = await http.as('admin', 'POST', `/api/v1/test-suites/${ts}/test-runs`);
    assert.equal(res.status, 202);
    return res.body.id as string;
  };
  const getJob = async (id: string) => {
    const res = await http.as('admin', 'GET', `/api/v1/jobs/${id}`);
    assert.equal(res.status, 200);
    return res.body;
  };
  const advance = (ms: number) => sim.controls.advanceClock(ms);

  test('a job goes pending → claimed → running → completed with its lifecycle timestamps', async () => {
    const id = await submitTests();
    let job = await getJob(id);
    assert.equal(job.status, 'pending');
    assert.equal(job.job_key, 'run-tests');
    assert.equal(job.source, 'api');
    assert.deepEqual([job.claimed_at, job.started_at, job.completed_at, job.error_message], [null, null, null, null]);
    advance(FROZEN.pendingMs);
    job = await getJob(id);
    assert.equal(job.status, 'claimed');
    assert.equal(Date.parse(job.claimed_at) - Date.parse(job.created_at), FROZEN.pendingMs);
    advance(FROZEN.claimMs);
    job = await getJob(id);
    assert.equal(job.status, 'running');
    assert.equal(Date.parse(job.started_at) - Date.parse(job.claimed_at), FROZEN.claimMs);
    advance(FROZEN.runMs);
    job = await getJob(id);
    assert.equal(job.status, 'completed');
    assert.equal(Date.parse(job.completed_at) - Date.parse(job.started_at), FROZEN.runMs);
  });

  test('a test run carries its caller link (external_url, metadata) into its summary, as TestGen does', async () => {
    const link = { external_url: 'http://ui/namespaces/default/workflows/w/r/history', metadata: { workflow_id: 'w' } };
    const submitted = await http.as('admin', 'POST', `/api/v1/test-suites/${TS.financeProd}/test-runs`, link);
    assert.equal(submitted.status, 202, submitted.text);
    const summary = await http.as('admin', 'GET', `/api/v1/test-runs/${submitted.body.id}`);
    assert.equal(summary.body.external_url, link.external_url);
    assert.deepEqual(summary.body.metadata, link.metadata);
    const bad = await http.as('admin', 'POST', `/api/v1/test-suites/${TS.financeProd}/test-runs`, { metadata: 'x' });
    assert.equal(bad.status, 422);
  });

  test('a clock jump replays every transition with exact timestamps', async () => {
    const id = await submitTests();
    advance(FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs + 5_000);
    const job = await getJob(id);
    assert.equal(job.status, 'completed');
    assert.equal(
      Date.parse(job.completed_at) - Date.parse(job.created_at),
      FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs,
    );
  });

  for (const [name, steps] of [
    ['pending', 0],
    ['claimed', FROZEN.pendingMs],
    ['running', FROZEN.pendingMs + FROZEN.claimMs],
  ] as const) {
    test(`cancel while ${name}: cancel_requested, then canceled, asynchronously`, async () => {
      const id = await submitProfile();
      advance(steps);
      assert.equal((await getJob(id)).status, name);
      const res = await http.as('admin', 'POST', `/api/v1/jobs/${id}/cancel`);
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'cancel_requested');
      assert.equal((await getJob(id)).status, 'cancel_requested');
      advance(FROZEN.cancelMs);
      const job = await getJob(id);
      assert.equal(job.status, 'canceled');
      assert.notEqual(job.completed_at, null);
    });
  }

  test('cancel while interrupt_requested and while interrupted', async () => {
    for (const settle of [0, FROZEN.interruptMs]) {
      const id = await submitProfile();
      advance(FROZEN.pendingMs + FROZEN.claimMs + 1_000);
      sim.controls.interruptJob(id);
      advance(settle);
      const before = (await getJob(id)).status;
      assert.equal(before, settle === 0 ? 'interrupt_requested' : 'interrupted');
      assert.equal((await http.as('admin', 'POST', `/api/v1/jobs/${id}/cancel`)).body.status, 'cancel_requested');
      advance(FROZEN.cancelMs);
      assert.equal((await getJob(id)).status, 'canceled');
    }
  });

  test('repeating a cancel on cancel_requested is allowed; a cancel of a terminal job is 409 and changes nothing', async () => {
    const id = await submitProfile();
    assert.equal((await http.as('admin', 'POST', `/api/v1/jobs/${id}/cancel`)).status, 200);
    const again = await http.as('admin', 'POST', `/api/v1/jobs/${id}/cancel`);
    assert.equal(again.status, 200);
    assert.equal(again.body.status, 'cancel_requested');
    advance(FROZEN.cancelMs);
    const late = await http.as('admin', 'POST', `/api/v1/jobs/${id}/cancel`);
    assert.equal(late.status, 409);
    assert.equal(late.body.detail.errors[0].code, 'invalid_status_transition');
    assert.equal((await getJob(id)).status, 'canceled');
    assert.equal(sim.controls.counters().cancels[id], 3);
  });

  test('an interrupted profiling run resumes at the next scheduler start: claimed_at moves, started_at never does', async () => {
    const id = await submitProfile();
    advance(FROZEN.pendingMs + FROZEN.claimMs + 200_000); // 200 s of the 600 s run done
    const running = await getJob(id);
    assert.equal(running.status, 'running');
    sim.controls.shutdownScheduler();
    assert.equal((await getJob(id)).status, 'interrupt_requested');
    advance(FROZEN.interruptMs);
    assert.equal((await getJob(id)).status, 'interrupted');
    advance(3_600_000); // an hour of downtime: interrupted is not terminal, nothing moves
    assert.equal((await getJob(id)).status, 'interrupted');
    assert.deepEqual(sim.controls.restartScheduler(), [id]);
    const resumed = await getJob(id);
    assert.equal(resumed.status, 'claimed');
    assert.ok(Date.parse(resumed.claimed_at) > Date.parse(resumed.started_at), 'claimed_at is later than started_at');
    assert.equal(resumed.started_at, running.started_at);
    advance(FROZEN.claimMs);
    assert.equal((await getJob(id)).status, 'running');
    advance(399_999); // progress was kept: 400 s remain, not 600 s
    assert.equal((await getJob(id)).status, 'running');
    advance(1);
    const done = await getJob(id);
    assert.equal(done.status, 'completed');
    assert.equal(done.started_at, running.started_at);
    assert.equal(sim.controls.job(id)?.claims, 2);
  });

  test('test runs are never interrupted', async () => {
    const id = await submitTests();
    advance(FROZEN.pendingMs + FROZEN.claimMs);
    assert.throws(() => sim.controls.interruptJob(id), /only profiling runs can be interrupted/);
    assert.equal((await getJob(id)).status, 'running');
  });

  test('terminal statuses never change', async () => {
    const id = await submitProfile();
    sim.controls.failJob(id, 'warehouse connection refused');
    let job = await getJob(id);
    assert.equal(job.status, 'error');
    assert.equal(job.error_message, 'warehouse connection refused');
    advance(FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs);
    assert.throws(() => sim.controls.failJob(id, 'again'), /already error/);
    assert.equal((await http.as('admin', 'POST', `/api/v1/jobs/${id}/cancel`)).status, 409);
    job = await getJob(id);
    assert.equal(job.status, 'error');
    assert.equal(job.error_message, 'warehouse connection refused');
  });

  test('a job plan fails the next matching job when its run ends', async () => {
    sim.controls.planJobs({
      job_key: 'run-tests',
      target_id: TS.financeProd,
      fail_with: 'column ledger.account missing',
    });
    const id = await submitTests();
    advance(FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs);
    const job = await getJob(id);
    assert.equal(job.status, 'error');
    assert.equal(job.error_message, 'column ledger.account missing');
    const next = await submitTests();
    advance(FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs);
    assert.equal((await getJob(next)).status, 'completed', 'the plan applied to one job only');
  });

  test('job plans no job has used yet can be dropped', async () => {
    sim.controls.planJobs({ job_key: 'run-tests', target_id: TS.financeProd, fail_with: 'never used', count: 2 });
    sim.controls.planJobs({ job_key: 'run-profile', durations: { runMs: 1 } });
    assert.equal(sim.controls.clearJobPlans(), 2);
    assert.equal(sim.controls.clearJobPlans(), 0);
    const id = await submitTests();
    advance(FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs);
    assert.equal((await getJob(id)).status, 'completed', 'a dropped plan applied to a job');
  });

  test('per-job durations can be changed', async () => {
    const id = await submitTests();
    sim.controls.setJobDurations({ pendingMs: 10 }, id);
    advance(10);
    assert.equal((await getJob(id)).status, 'claimed');
  });

  test('summaries: exact numbers from seed data, result null until completed, 404 for the wrong kind', async () => {
    const tid = await submitTests(TS.financeProd);
    let summary = await http.as('admin', 'GET', `/api/v1/test-runs/${tid}`);
    assert.equal(summary.status, 200);
    assert.equal(summary.body.result, null);
    assert.equal((await http.as('admin', 'GET', `/api/v1/profiling-runs/${tid}`)).status, 404);
    advance(FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs);
    summary = await http.as('admin', 'GET', `/api/v1/test-runs/${tid}`);
    // finance-prod: 5 definitions, one inactive; Required(ledger.account) failed, Recency error, one dismissed.
    // The score is a fraction from 0 to 1, as TestGen 5.134 reports it.
    assert.deepEqual(summary.body.result, {
      score: 0.333,
      result_counts: { passed: 1, failed: 1, warning: 0, error: 1, log: 0, dismissed: 1 },
    });
    assert.equal(summary.body.test_suite_id, TS.financeProd);
    assert.equal(summary.body.table_group_id, TG.finance);
    assert.equal(summary.body.status, 'completed');

    const pid = await submitProfile(TG.finance);
    advance(FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs);
    assert.equal((await http.as('admin', 'GET', `/api/v1/test-runs/${pid}`)).status, 404);
    const profile = await http.as('admin', 'GET', `/api/v1/profiling-runs/${pid}`);
    assert.deepEqual(profile.body.result, {
      score: 0.917,
      table_ct: 2,
      column_ct: 6,
      record_ct: 881_200,
      issue_counts: {
        hygiene_issues: { definite: 0, likely: 1, possible: 0 },
        potential_pii: { high: 0, moderate: 0 },
        dismissed: 0,
      },
    });
  });

  test('a completed profiling run of an auto-generating table group enqueues a generation job; locked tests survive it', async () => {
    const beforeDefs = sim.controls.definitions(TS.salesProd);
    const lockedBefore = beforeDefs.find((d) => d.test_type === 'Missing_Pct');
    assert.equal(lockedBefore?.lock_refresh, true);
    const id = await submitProfile(TG.sales);
    advance(FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs);
    assert.equal((await getJob(id)).status, 'completed');
    const gen = sim.controls.jobs().find((j) => j.job_key === 'run-test-generation' && j.table_group_id === TG.sales);
    assert.ok(gen, 'a generation job follows the profiling run');
    assert.equal(gen.status, 'pending', 'profiling completed does not mean tests are ready');
    assert.equal(gen.source, 'system', "TestGen 5.134's source for its follow-up jobs");
    assert.equal(gen.test_suite_id, TS.salesProd);
    assert.equal(sim.controls.definitions(TS.salesProd).length, beforeDefs.length, 'nothing generated yet');
    advance(FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs);
    assert.equal((await getJob(gen.id)).status, 'completed');
    const afterDefs = sim.controls.definitions(TS.salesProd);
    assert.equal(afterDefs.length, beforeDefs.length + 1, 'Unique(customers.id) created');
    const created = afterDefs.find((d) => d.table_name === 'customers' && d.column_name === 'id');
    assert.equal(created?.test_type, 'Unique');
    assert.equal(created?.schema_name, 'sales');
    assert.equal(afterDefs.find((d) => d.test_type === 'Missing_Pct')?.threshold_value, '0.05', 'locked kept');
    assert.equal(afterDefs.find((d) => d.test_type === 'Email_Format')?.threshold_value, '0.01', 'locked kept');
    const refreshed = afterDefs.find((d) => d.test_type === 'Min_Val');
    assert.notEqual(
      refreshed?.last_auto_gen_date,
      beforeDefs.find((d) => d.test_type === 'Min_Val')?.last_auto_gen_date,
    );
  });

  test('job listing: filters, newest first, pagination, limit at most 100', async () => {
    const ids = [await submitTests(), await submitTests(), await submitTests()];
    const page = await http.as('admin', 'GET', '/api/v1/projects/DEMO/jobs?job_key=run-tests&status=pending&limit=2');
    assert.equal(page.status, 200);
    assert.equal(page.body.limit, 2);
    assert.equal(page.body.page, 1);
    assert.equal(page.body.total, 3);
    assert.deepEqual(
      page.body.items.map((j: { id: string }) => j.id),
      [ids[2], ids[1]],
    );
    const page2 = await http.as(
      'admin',
      'GET',
      '/api/v1/projects/DEMO/jobs?job_key=run-tests&status=pending&limit=2&page=2',
    );
    assert.deepEqual(
      page2.body.items.map((j: { id: string }) => j.id),
      [ids[0]],
    );
    const dflt = await http.as('admin', 'GET', '/api/v1/projects/DEMO/jobs');
    assert.equal(dflt.body.limit, 20);
    const tooMany = await http.as('admin', 'GET', '/api/v1/projects/DEMO/jobs?limit=101');
    assert.equal(tooMany.status, 422);
    assert.deepEqual(tooMany.body.detail[0].loc, ['query', 'limit']);
  });

  test('the deployed summary shape: result.tests and result.issues', async () => {
    const other = await startTestSimulator({
      jobDurations: { pendingMs: 0, claimMs: 0, runMs: 0 },
      variants: { summaryShape: 'deployed', scoreScale: 'percent' },
    });
    try {
      const t = await other.http.as('admin', 'POST', `/api/v1/test-suites/${TS.financeProd}/test-runs`);
      const p = await other.http.as('admin', 'POST', `/api/v1/table-groups/${TG.sales}/profiling-runs`);
      const tr = await other.http.as('admin', 'GET', `/api/v1/test-runs/${t.body.id}`);
      // The percentage deployments' scale, kept as a variant.
      assert.deepEqual(tr.body.result, {
        score: 33.3,
        tests: { passed: 1, failed: 1, warning: 0, error: 1, log: 0, dismissed: 1 },
      });
      const pr = await other.http.as('admin', 'GET', `/api/v1/profiling-runs/${p.body.id}`);
      assert.deepEqual(pr.body.result.issues, { definite: 1, likely: 2, possible: 3, dismissed: 1 });
      assert.equal(pr.body.result.issue_counts, undefined);
    } finally {
      await other.sim.close();
    }
  });
});
