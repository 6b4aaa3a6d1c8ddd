import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ActivityFailure, ApplicationFailure, CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import type { JobSubmitted } from '../../src/contract/types.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { progressQuery } from '../../src/contract/index.js';
import { runActivity, simDeps, SUBMIT_QUICK_RETRY, submissionsTo, withProjectWorker } from '../helpers/activities.js';
import { FROZEN, clientFor, startTestSimulator, faultHits } from '../helpers/sim.js';
import { startDevServerEnv, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const OPTIONS = SUBMIT_QUICK_RETRY;

// On the dev server: reconciliation compares the service's created_at with when Temporal first scheduled the activity,
// and the time-skipping server's clock jumps ahead of the service's, which no real deployment does.
describe('exactly-once submission on a real worker', () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  before(async () => {
    t = await startDevServerEnv();
    ({ sim } = await startTestSimulator({ jobDurations: FROZEN }));
  });
  after(async () => {
    await sim?.close();
    await t?.env.teardown();
  });
  const submissions = (target: string) => submissionsTo(sim, target);
  /** Runs one submission activity on a real worker, with a fresh client (so it logs in). */
  const submitOnce = async (activity: string, input: { targetId: string; projectCode?: string }) =>
    (await runActivity(t.env, await simDeps(sim), activity, input, OPTIONS)) as JobSubmitted;

  test('a login that fails inside a submit never adopts an earlier job of the same target', async () => {
    // An earlier run's job on the same suite, minutes ago: exactly what a careless lookup would take as its own.
    const earlier = await submitOnce('submitTestRun', { targetId: TS.salesDev });
    const before = submissions(TS.salesDev);
    sim.controls.addFault({ kind: 'status', status: 503, method: 'POST', path: '/v2/login' });
    const res = await submitOnce('submitTestRun', { targetId: TS.salesDev });
    assert.notEqual(res.jobId, earlier.jobId, "not the earlier run's job");
    assert.equal(res.reconciled, false);
    assert.equal(submissions(TS.salesDev), before + 1, 'one new job of its own');
  });

  test('a response dropped after the job was created: the job is found, never submitted twice', async () => {
    const before = submissions(TG.finance);
    sim.controls.addFault({ kind: 'drop_after_commit', method: 'POST', path: '/profiling-runs' });
    const res = await submitOnce('submitProfilingRun', { targetId: TG.finance });
    assert.equal(submissions(TG.finance), before + 1, 'exactly one job');
    assert.equal(res.reconciled, true);
    const job = sim.controls.job(res.jobId);
    assert.equal(job?.table_group_id, TG.finance, 'the id returned is the job that was created');
    assert.equal(job?.job_key, 'run-profile');
  });

  test('when the lookup itself fails, the next attempt looks again before it submits', async () => {
    const before = submissions(TS.financeProd);
    sim.controls.addFault({ kind: 'drop_after_commit', method: 'POST', path: '/test-runs' });
    sim.controls.addFault({ kind: 'status', status: 503, path: '/projects/DEMO/jobs' });
    const res = await submitOnce('submitTestRun', { targetId: TS.financeProd });
    assert.equal(submissions(TS.financeProd), before + 1, 'exactly one job');
    assert.equal(res.reconciled, true);
    assert.equal(sim.controls.job(res.jobId)?.test_suite_id, TS.financeProd);
  });

  test('a refused submission (429) is simply submitted again: one job, not reconciled', async () => {
    const before = submissions(TS.salesProd);
    sim.controls.addFault({ kind: 'rate_limit', retry_after: 1, method: 'POST', path: '/test-runs' });
    const res = await submitOnce('submitTestRun', { targetId: TS.salesProd });
    assert.equal(submissions(TS.salesProd), before + 1);
    assert.equal(res.reconciled, false);
  });

  test('without a project code to look the job up, a lost response fails as SubmissionOutcomeUnknown', async () => {
    const before = submissions(TG.sales);
    sim.controls.addFault({ kind: 'drop_after_commit', method: 'POST', path: '/profiling-runs' });
    const err = await runActivity(
      t.env,
      await simDeps(sim, { projectCode: null }),
      'submitProfilingRun',
      { targetId: TG.sales },
      OPTIONS,
    ).catch((e: unknown) => e);
    assert.ok(err instanceof WorkflowFailedError && err.cause instanceof ActivityFailure);
    const cause = err.cause.cause;
    assert.ok(cause instanceof ApplicationFailure);
    assert.equal(cause.type, 'SubmissionOutcomeUnknown');
    assert.equal(cause.nonRetryable, true);
    assert.equal(submissions(TG.sales), before + 1, 'one job, and no second one');
  });

  test('an existing job of another target or created before the attempt is never taken for ours', async () => {
    const older = await submitOnce('submitTestRun', { targetId: TS.financeProd });
    await new Promise((r) => setTimeout(r, 50));
    const exact = await simDeps(sim);
    const before = submissions(TS.financeProd);
    sim.controls.addFault({
      kind: 'drop_after_commit',
      method: 'POST',
      path: `/test-suites/${TS.financeProd}/test-runs`,
    });
    const [res, other] = (await Promise.all([
      runActivity(t.env, exact, 'submitTestRun', { targetId: TS.financeProd }, OPTIONS),
      runActivity(t.env, await simDeps(sim), 'submitTestRun', { targetId: TS.salesProd }, OPTIONS),
    ])) as JobSubmitted[];
    assert.equal(submissions(TS.financeProd), before + 1);
    assert.equal(res!.reconciled, true);
    assert.notEqual(res!.jobId, older.jobId, 'not the older job of the same suite');
    assert.notEqual(res!.jobId, other!.jobId, 'not the job of another suite');
    assert.equal(sim.controls.job(res!.jobId)?.test_suite_id, TS.financeProd);
  });

  for (const [activity, target] of [
    ['submitTestRun', TS.salesDev],
    ['submitProfilingRun', TG.sales],
  ] as const) {
    test(`${activity}: a 503 on a target used moments before never adopts the earlier job`, async () => {
      // The earlier job is seconds old: only the watermark keeps it out.
      const earlier = await submitOnce(activity, { targetId: target });
      const before = submissions(target);
      sim.controls.addFault({ kind: 'status', status: 503, method: 'POST', path: target });
      const res = await submitOnce(activity, { targetId: target });
      assert.notEqual(res.jobId, earlier.jobId, "not the earlier run's job");
      assert.equal(res.reconciled, false, 'the 503 created nothing, so the retry submitted');
      assert.equal(submissions(target), before + 1, 'one new job of its own');
    });
  }

  test('a request held past the client timeout that commits late is found after settling, never sent twice', async () => {
    const before = submissions(TG.finance);
    const deps = await simDeps(sim, { submitSettleMs: 4_000 });
    deps.profiles.default!.client = await clientFor(sim, 'admin', { timeoutMs: 800 });
    sim.controls.addFault({ kind: 'delay', delay_ms: 2_500, method: 'POST', path: '/profiling-runs' });
    const res = (await runActivity(
      t.env,
      deps,
      'submitProfilingRun',
      { targetId: TG.finance },
      OPTIONS,
    )) as JobSubmitted;
    assert.equal(submissions(TG.finance), before + 1, 'exactly one job although the answer came too late');
    assert.equal(res.reconciled, true);
    assert.equal(sim.controls.job(res.jobId)?.table_group_id, TG.finance);
  });

  test('two workflows on one target, one answer lost: the lock keeps each to its own job', async () => {
    const before = new Set(sim.controls.jobs().map((j) => j.id));
    sim.controls.addFault({ kind: 'drop_after_commit', method: 'POST', path: `/table-groups/${TG.finance}/` });
    await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const handles = await Promise.all(
        ['a', 'b'].map((name) =>
          t.env.client.workflow.start('dataops.profileTableGroup', {
            taskQueue,
            workflowId: `two-${name}-${taskQueue}`,
            args: [{ tableGroupId: TG.finance, pollIntervalMs: 100, maxPollIntervalMs: 200, cancelRemoteJob: false }],
          }),
        ),
      );
      const jobIds = await Promise.all(
        handles.map((h) =>
          eventually('the job recorded', async () => (await h.query(progressQuery)).jobs[0]?.jobId ?? undefined),
        ),
      );
      const created = sim.controls.jobs().filter((j) => !before.has(j.id) && j.table_group_id === TG.finance);
      assert.equal(created.length, 2, 'two workflows, two jobs: no duplicate');
      assert.notEqual(jobIds[0], jobIds[1], "no workflow adopted the other one's job");
      assert.deepEqual(new Set(jobIds), new Set(created.map((j) => j.id)), 'each follows a job that exists');
      await Promise.all(handles.map((h) => h.cancel()));
      await Promise.all(handles.map((h) => h.result().catch(() => undefined)));
    });
  });

  describe('orders, reconciled through the order listing', () => {
    const ORDER = { kitchen: 'production', recipe: 'refresh-marts', variation: 'full', parameters: {} };
    const orders = () => sim.controls.orders().filter((o) => o.recipe === ORDER.recipe);
    const runOrder = async (deps?: Awaited<ReturnType<typeof simDeps>>) =>
      (await runActivity(t.env, deps ?? (await simDeps(sim)), 'runOrder', ORDER, OPTIONS)) as {
        orderId: string;
        reconciled: boolean;
      };

    test('an answer lost after the order was created: the order is found, never created twice', async () => {
      const before = orders().length;
      sim.controls.addFault({ kind: 'drop_after_commit', method: 'PUT', path: '/v2/order/create/' });
      const res = await runOrder();
      assert.equal(orders().length, before + 1, 'exactly one order');
      assert.equal(res.reconciled, true);
      assert.ok(
        orders().some((o) => o.id === res.orderId),
        'the id returned is the order that was created',
      );
    });

    test('a 503 right after an earlier order of the same recipe creates a new one, never adopts the earlier', async () => {
      const earlier = await runOrder();
      const before = orders().length;
      sim.controls.addFault({ kind: 'status', status: 503, method: 'PUT', path: '/v2/order/create/' });
      const res = await runOrder();
      assert.notEqual(res.orderId, earlier.orderId);
      assert.equal(res.reconciled, false);
      assert.equal(orders().length, before + 1);
    });

    test('an order create held past the client timeout is found after settling, not created twice', async () => {
      const before = orders().length;
      const deps = await simDeps(sim, { submitSettleMs: 4_000 });
      deps.profiles.default!.client = await clientFor(sim, 'admin', { timeoutMs: 800 });
      sim.controls.addFault({ kind: 'delay', delay_ms: 2_500, method: 'PUT', path: '/v2/order/create/' });
      const res = await runOrder(deps);
      assert.equal(orders().length, before + 1, 'one order although the answer came too late');
      assert.equal(res.reconciled, true);
    });
  });

  test('a cancel that arrives while the order is created stops the order and submits nothing after it', async () => {
    const jobsBefore = sim.controls.jobs().length;
    const fault = sim.controls.addFault({ kind: 'delay', delay_ms: 1_500, method: 'PUT', path: '/v2/order/create/' });
    await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const handle = await t.env.client.workflow.start('dataops.dataQualityPipeline', {
        taskQueue,
        workflowId: `cancel-in-order-${taskQueue}`,
        args: [
          {
            tableGroupId: TG.sales,
            testSuiteId: TS.salesDev,
            order: { kitchen: 'production', recipe: 'load-warehouse', variation: 'daily' },
          },
        ],
      });
      await eventually('the order request', () => faultHits(sim, fault) === 1);
      await handle.cancel();
      const err = await handle.result().catch((e: unknown) => e);
      assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure, String(err));
      const progress = await handle.query(progressQuery);
      const order = sim.controls.orders().find((o) => o.id === progress.orderId);
      assert.ok(order, 'the order was created and its id recorded');
      assert.equal(order.servings[0]?.status, 'STOPPED_SERVING', 'and stopped');
    });
    assert.equal(sim.controls.jobs().length, jobsBefore, 'no profiling run was submitted after the cancel');
  });

  describe('on a deployment whose job objects carry no target (TestGen 5.134)', () => {
    let bare: RunningSimulator;
    before(async () => {
      ({ sim: bare } = await startTestSimulator({ jobDurations: FROZEN, variants: { listingTargets: false } }));
    });
    after(async () => bare?.close());
    const count = (target: string) => bare.controls.counters().submissions[target] ?? 0;

    for (const [activity, target, path] of [
      ['submitProfilingRun', TG.sales, '/profiling-runs'],
      ['submitTestRun', TS.salesDev, '/test-runs'],
    ] as const)
      test(`${activity}: a lost answer is found through the run's own record, beside an earlier job`, async () => {
        await runActivity(t.env, await simDeps(bare), activity, { targetId: target }, OPTIONS);
        const before = count(target);
        bare.controls.addFault({ kind: 'drop_after_commit', method: 'POST', path });
        const res = (await runActivity(
          t.env,
          await simDeps(bare),
          activity,
          { targetId: target },
          OPTIONS,
        )) as JobSubmitted;
        assert.equal(count(target), before + 1, 'exactly one new job');
        assert.equal(res.reconciled, true);
        const job = bare.controls.job(res.jobId);
        assert.equal(job?.table_group_id === target || job?.test_suite_id === target, true, 'and it is ours');
      });

    test('a lost profiling answer whose run tells its table group only once started is looked for until it starts', async () => {
      // TestGen 5.134 writes the profiling run's record when the run starts: with its scheduler busy or paused past
      // the settle window, the lookup cannot tell whose the new job is. It looks on rather than give up, and the job
      // it created is neither sent twice nor left running unwatched.
      const { sim: late } = await startTestSimulator({
        jobDurations: FROZEN,
        variants: { runTargetOnceStarted: true },
      });
      try {
        late.controls.addFault({ kind: 'drop_after_commit', method: 'POST', path: '/profiling-runs' });
        const pending = runActivity(t.env, await simDeps(late), 'submitProfilingRun', { targetId: TG.sales }, OPTIONS);
        const job = await eventually('the job', () =>
          late.controls.jobs().find((j) => j.job_key === 'run-profile' && j.table_group_id === TG.sales),
        );
        const reads = () => late.controls.requests().filter((r) => r.path === `/api/v1/profiling-runs/${job.id}`);
        // The settle window (1.5 s) looks three times; a fourth look is past it.
        await eventually('looked at past the settle window', () => reads().length >= 4, { tries: 400, delayMs: 50 });
        late.controls.setJobDurations({ pendingMs: 0, claimMs: 0 }, job.id);
        const res = (await pending) as JobSubmitted;
        assert.equal(res.jobId, job.id, 'the job it created, found once it started');
        assert.equal(res.reconciled, true);
        assert.equal(late.controls.counters().submissions[TG.sales], 1, 'not submitted twice');
      } finally {
        await late.close();
      }
    });

    test("a run record that breaks its schema during the lookup is looked at again, not the submission's end", async () => {
      const before = count(TG.finance);
      bare.controls.addFault({ kind: 'drop_after_commit', method: 'POST', path: '/profiling-runs' });
      // The first record read of the lookup answers a body that breaks its schema (as another job's might).
      bare.controls.addFault({
        kind: 'respond',
        status: 200,
        method: 'GET',
        path: '^/api/v1/profiling-runs/',
        body: { x: 1 },
      });
      const res = (await runActivity(
        t.env,
        await simDeps(bare),
        'submitProfilingRun',
        { targetId: TG.finance },
        OPTIONS,
      )) as JobSubmitted;
      assert.equal(count(TG.finance), before + 1, 'exactly one new job');
      assert.equal(res.reconciled, true, 'found at the next look');
      assert.equal(bare.controls.faults().find((f) => f.kind === 'respond')?.hits, 1, 'the broken read happened');
    });
  });
});
