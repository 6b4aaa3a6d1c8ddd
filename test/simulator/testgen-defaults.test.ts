/**
 * The simulator plays TestGen 5.134 where it differs from the spec, by default, and keeps the spec's shapes as
 * variants: job objects without targets, follow-up generation after a group's first completed profiling run only,
 * the pause and queue statuses, the profiling history of a table group.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { FROZEN, startTestSimulator, type SimHttp } from '../helpers/sim.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const FULL_RUN = FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs;

async function frozenSim(variants = {}) {
  return startTestSimulator({ jobDurations: FROZEN, manualClock: true, variants });
}

function helpers(sim: RunningSimulator, http: SimHttp) {
  return {
    profile: async (tg: string) =>
      (await http.as('admin', 'POST', `/api/v1/table-groups/${tg}/profiling-runs`)).body.id,
    testRun: async (ts: string) => (await http.as('admin', 'POST', `/api/v1/test-suites/${ts}/test-runs`)).body.id,
    status: async (id: string) => (await http.as('admin', 'GET', `/api/v1/jobs/${id}`)).body.status as string,
    generations: (tg: string) =>
      sim.controls.jobs().filter((j) => j.job_key === 'run-test-generation' && j.table_group_id === tg),
  };
}

describe('simulator: TestGen 5.134 by default', () => {
  let sim: RunningSimulator;
  let http: SimHttp;
  let h: ReturnType<typeof helpers>;
  before(async () => {
    ({ sim, http } = await frozenSim());
    h = helpers(sim, http);
  });
  after(async () => sim?.close());

  test('job objects name no target, in the listing and at GET /jobs/{id}', async () => {
    const id = await h.testRun(TS.financeProd);
    const job = (await http.as('admin', 'GET', `/api/v1/jobs/${id}`)).body;
    assert.deepEqual(
      Object.keys(job).filter((k) => k.endsWith('_id')),
      [],
      'no table_group_id, test_suite_id',
    );
    const listing = await http.as('admin', 'GET', '/api/v1/projects/DEMO/jobs?job_key=run-tests');
    assert.equal(listing.body.items[0].id, id);
    assert.equal('test_suite_id' in listing.body.items[0], false);
    const summary = await http.as('admin', 'GET', `/api/v1/test-runs/${id}`);
    assert.equal(summary.body.test_suite_id, TS.financeProd, 'the run record still names it');
  });

  test('health answers as a pip install of TestGen does: no version', async () => {
    const res = await http.request('GET', '/api/v1/health');
    assert.deepEqual(res.body, { status: 'ok', edition: 'simulator', version: null });
  });

  test('generation (source system) follows only the first completed profiling run; cancelled ones do not count', async () => {
    const cancelled = await h.profile(TG.sales);
    await http.as('admin', 'POST', `/api/v1/jobs/${cancelled}/cancel`);
    sim.controls.advanceClock(FROZEN.cancelMs);
    assert.equal(await h.status(cancelled), 'canceled');

    const first = await h.profile(TG.sales);
    sim.controls.advanceClock(FULL_RUN);
    assert.equal(await h.status(first), 'completed');
    const after1 = h.generations(TG.sales);
    assert.equal(after1.length, 1, 'the first completed run is followed by generation');
    assert.equal(after1[0]?.source, 'system');

    const second = await h.profile(TG.sales);
    sim.controls.advanceClock(FULL_RUN);
    assert.equal(await h.status(second), 'completed');
    assert.equal(h.generations(TG.sales).length, 1, 'the second is not');

    const history = await http.as(
      'admin',
      'GET',
      `/api/v1/table-groups/${TG.sales}/profiling-runs?status=completed&limit=1`,
    );
    assert.equal(history.status, 200);
    assert.equal(history.body.total, 2, 'completed runs only');
    assert.equal(history.body.items.length, 1);
    assert.equal(history.body.items[0].job_execution_id, second, 'newest first');
    assert.ok(history.body.items[0].profiling_score <= 1, 'a fraction');
    const all = await http.as('admin', 'GET', `/api/v1/table-groups/${TG.sales}/profiling-runs`);
    assert.equal(all.body.total, 3);
  });

  test('pause and resume pass through pause_requested and resume_requested; the run keeps its progress', async () => {
    const id = await h.testRun(TS.financeProd);
    sim.controls.advanceClock(FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs / 2);
    assert.equal(await h.status(id), 'running');
    sim.controls.pauseJob(id);
    assert.equal(await h.status(id), 'pause_requested');
    sim.controls.advanceClock(FROZEN.interruptMs);
    assert.equal(await h.status(id), 'paused');
    sim.controls.advanceClock(10 * FROZEN.runMs);
    assert.equal(await h.status(id), 'paused', 'a paused job waits for someone to resume it');
    sim.controls.resumeJob(id);
    assert.equal(await h.status(id), 'resume_requested');
    sim.controls.advanceClock(FROZEN.pendingMs);
    assert.equal(await h.status(id), 'claimed');
    sim.controls.advanceClock(FROZEN.claimMs + FROZEN.runMs / 2 - 1);
    assert.equal(await h.status(id), 'running');
    sim.controls.advanceClock(1);
    assert.equal(await h.status(id), 'completed', 'it ran for the half it still owed');
  });

  test('a paused job can be cancelled', async () => {
    const id = await h.testRun(TS.financeProd);
    sim.controls.advanceClock(FROZEN.pendingMs + FROZEN.claimMs);
    sim.controls.pauseJob(id);
    sim.controls.advanceClock(FROZEN.interruptMs);
    assert.equal((await http.as('admin', 'POST', `/api/v1/jobs/${id}/cancel`)).body.status, 'cancel_requested');
    sim.controls.advanceClock(FROZEN.cancelMs);
    assert.equal(await h.status(id), 'canceled');
  });
});

describe('simulator: run slots (TestGen queues in-process runs beyond TG_MAX_CONCURRENT_IN_PROCESS_RUNS)', () => {
  test('with one slot, a second job waits queued and is claimed when the first ends', async () => {
    const { sim, http } = await frozenSim({ runSlots: 1 });
    const h = helpers(sim, http);
    try {
      const a = await h.testRun(TS.financeProd);
      const b = await h.testRun(TS.salesProd);
      sim.controls.advanceClock(FROZEN.pendingMs);
      assert.deepEqual([await h.status(a), await h.status(b)], ['claimed', 'queued']);
      sim.controls.advanceClock(FROZEN.claimMs + FROZEN.runMs);
      assert.equal(await h.status(a), 'completed');
      assert.equal(await h.status(b), 'claimed', 'the freed slot goes to the queued job');
      sim.controls.advanceClock(FROZEN.claimMs + FROZEN.runMs);
      assert.equal(await h.status(b), 'completed');
      const queuedThenCancelled = await h.testRun(TS.financeProd);
      const blocker = await h.testRun(TS.salesProd);
      sim.controls.advanceClock(FROZEN.pendingMs);
      assert.deepEqual([await h.status(queuedThenCancelled), await h.status(blocker)], ['claimed', 'queued']);
      await http.as('admin', 'POST', `/api/v1/jobs/${blocker}/cancel`);
      sim.controls.advanceClock(FROZEN.cancelMs);
      assert.equal(await h.status(blocker), 'canceled', 'a queued job can be cancelled');
    } finally {
      await sim.close();
    }
  });
});

describe("simulator: the spec's shapes as variants", () => {
  test('listingTargets: job objects carry table_group_id and test_suite_id', async () => {
    const { sim, http } = await frozenSim({ listingTargets: true });
    const h = helpers(sim, http);
    try {
      const id = await h.profile(TG.finance);
      const listing = await http.as('admin', 'GET', '/api/v1/projects/DEMO/jobs?job_key=run-profile');
      assert.equal(listing.body.items[0].id, id);
      assert.equal(listing.body.items[0].table_group_id, TG.finance);
      assert.equal(listing.body.items[0].test_suite_id, null);
    } finally {
      await sim.close();
    }
  });

  test('generationFollows every-profile: each completed profiling run is followed by generation', async () => {
    const { sim, http } = await frozenSim({ generationFollows: 'every-profile' });
    const h = helpers(sim, http);
    try {
      for (let i = 0; i < 2; i++) {
        await h.profile(TG.sales);
        sim.controls.advanceClock(FULL_RUN);
      }
      assert.equal(h.generations(TG.sales).length, 2);
    } finally {
      await sim.close();
    }
  });
});
