/**
 * The fault matrix: real Temporal, simulator and worker processes. Every fault kind of the simulator × every stage it
 * can hit, worker SIGKILLs at submit, wait and summary, a Temporal restart, a simulator restart, a target reused at
 * once, and two pipelines on one target. Each cell asserts its outcome; the ledger counts duplicates, adopted jobs,
 * orphans, leaks after a cancel, wrong outcomes and false reports over the run, prints them, and requires zeros.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import {
  progressQuery,
  type DataQualityPipelineResult,
  type PromoteTestDefinitionsResult,
  type RunOrderResult,
} from '../../src/contract/index.js';
import {
  KINDS,
  Ledger,
  ORDER_STAGES,
  PIPELINE_STAGES,
  PROMOTION_STAGES,
  cellIds,
  expectedOf,
  faultOf,
  matrixSeed,
  type Kind,
  type Outcome,
  type Stage,
} from '../helpers/matrix.js';
import { ending } from '../helpers/ending.js';
import { ABOUT_A_SECOND, startWorld, type World } from '../helpers/matrix-world.js';
import { eventually } from '../helpers/wait.js';
import { killedBeforeItsRecord } from '../helpers/unrecorded-send.js';

const TERMINAL = new Set(['completed', 'error', 'canceled']);
const ORDER_TERMINAL = new Set(['COMPLETED_SERVING', 'STOPPED_SERVING', 'SERVING_ERROR', 'SERVING_RERAN']);
const QUEUE = 'matrix';
const LONG = { timeout: 15 * 60_000 };

describe('the fault matrix', () => {
  let w: World;
  const ledger = new Ledger();
  const started = Date.now();
  let next = 0;
  const newCell = () => cellIds(next++);
  /**
   * A cell as a test of its own: it passes only when its own ledger counts no problem, so one cell run by name
   * (`--test-name-pattern`) fails when it is wrong. Its counts go into the run's ledger, which the totals check.
   */
  const cell = (name: string, run: (l: Ledger) => Promise<void>): void => {
    test(name, LONG, async () => {
      const own = new Ledger();
      try {
        await run(own);
      } finally {
        ledger.add(own);
      }
      own.assertClean();
    });
  };

  before(async () => {
    w = await startWorld(matrixSeed(100));
    await w.controls.jobDurations(ABOUT_A_SECOND);
    await w.controls.orderDurations({ plannedMs: 200, runMs: 600 });
    w.startWorker(QUEUE);
    w.startWorker(QUEUE);
  }, LONG);
  after(async () => w?.close());

  const start = (type: string, id: string, args: unknown, taskQueue = QUEUE) =>
    w.client.workflow.start(type, { taskQueue, workflowId: `mx-${id}-${Date.now()}`, args: [args] });
  const jobsOf = async (ids: ReturnType<typeof cellIds>) => {
    const all = await w.controls.jobs();
    return {
      profiling: all.filter((j) => j.job_key === 'run-profile' && j.table_group_id === ids.tableGroup),
      tests: all.filter((j) => j.job_key === 'run-tests' && j.test_suite_id === ids.target),
    };
  };
  // A hang guard, not a speed check: a killed worker's submission lands after its heartbeat timeout and a new
  // worker's retry, which a loaded machine (the CI runs 16 cells at a time) can stretch past the default 30 s.
  const firstJob = (ids: ReturnType<typeof cellIds>, key: 'profiling' | 'tests') =>
    eventually(`the ${key} job`, async () => (await jobsOf(ids))[key][0], { tries: 4_800 });
  const pipelineArgs = (ids: ReturnType<typeof cellIds>) => ({
    tableGroupId: ids.tableGroup,
    testSuiteId: ids.target,
    testGeneration: 'skip',
    pollIntervalMs: 200,
    maxPollIntervalMs: 400,
    heartbeatTimeoutMs: 5_000,
    cancelTimeoutMs: 30_000,
  });

  /** Audits the jobs of a pipeline cell once its workflow has ended. */
  async function auditPipeline(
    l: Ledger,
    name: string,
    ids: ReturnType<typeof cellIds>,
    handle: WorkflowHandle,
    end: Awaited<ReturnType<typeof ending<DataQualityPipelineResult>>>,
    expected: Outcome,
  ) {
    l.ended(name, end, expected);
    // Every job the cell created must come to rest; a cancel's must be canceled.
    const settled = await eventually(
      'jobs at rest',
      async () => {
        const j = await jobsOf(ids);
        return [...j.profiling, ...j.tests].every((x) => TERMINAL.has(x.status)) ? j : undefined;
      },
      { tries: 100, delayMs: 100 },
    ).catch(() => undefined);
    const jobs = settled ?? (await jobsOf(ids));
    l.check(jobs.profiling.length <= 1, 'duplicates', name, `${jobs.profiling.length} profiling jobs`);
    l.check(jobs.tests.length <= 1, 'duplicates', name, `${jobs.tests.length} test runs`);
    const running = [...jobs.profiling, ...jobs.tests].filter((x) => !TERMINAL.has(x.status));
    l.check(
      running.length === 0,
      end.outcome === 'cancelled' ? 'leaks' : 'orphans',
      name,
      `${running.map((x) => `${x.id} ${x.status}`).join(', ')}`,
    );
    if (end.outcome === 'ok' && end.result) {
      const r = end.result;
      l.check(r.profiling.job.jobId === jobs.profiling[0]?.id, 'adopted', name, `profiling ${r.profiling.job.jobId}`);
      l.check(r.testRun.job.jobId === jobs.tests[0]?.id, 'adopted', name, `test run ${r.testRun.job.jobId}`);
      l.check(
        r.status === 'passed' && jobs.tests[0]?.status === 'completed' && jobs.profiling[0]?.status === 'completed',
        'falseReports',
        name,
        `reported ${r.status}; jobs ${jobs.profiling[0]?.status}/${jobs.tests[0]?.status}`,
      );
    }
    if (end.outcome === 'cancelled') {
      const rc = (await handle.query(progressQuery)).remoteCancel;
      const job = rc ? [...jobs.profiling, ...jobs.tests].find((x) => x.id === rc.jobId) : undefined;
      l.check(
        rc?.confirmed === true && job?.status === 'canceled',
        'falseReports',
        name,
        `remoteCancel ${JSON.stringify(rc)}, job ${job?.status}`,
      );
    }
  }

  /** One pipeline cell: the fault goes where `stage` says, on this cell's own targets or jobs. */
  async function pipelineCell(l: Ledger, stage: Stage, kind: Kind) {
    const ids = newCell();
    const name = `${stage} × ${kind}`;
    if (stage === 'submit-profiling')
      await w.controls.addFault(
        faultOf(kind, stage, { method: 'POST', path: `/table-groups/${ids.tableGroup}/profiling-runs` }),
      );
    if (stage === 'submit-tests')
      await w.controls.addFault(faultOf(kind, stage, { method: 'POST', path: `/test-suites/${ids.target}/test-runs` }));
    // The summary is fetched once the profiling run ends: it runs until the fault is in place, so a loaded machine
    // cannot let the summary through first.
    if (stage === 'summary')
      await w.controls.planJobs({ job_key: 'run-profile', target_id: ids.tableGroup, durations: { runMs: 600_000 } });
    const handle = await start('dataops.dataQualityPipeline', `${stage}-${kind}`, pipelineArgs(ids));
    if (stage === 'poll' || stage === 'summary') {
      const job = await firstJob(ids, 'profiling');
      const path = stage === 'poll' ? `/api/v1/jobs/${job.id}` : `/api/v1/profiling-runs/${job.id}`;
      await w.controls.addFault(faultOf(kind, stage, { method: 'GET', path }));
      if (stage === 'summary') await w.controls.jobDurations({ runMs: 1_000 }, job.id);
    }
    if (stage === 'cancel') {
      const job = await firstJob(ids, 'tests');
      await w.controls.jobDurations({ pendingMs: 200, claimMs: 100, runMs: 60_000, cancelMs: 200 }, job.id);
      await w.controls.addFault(faultOf(kind, stage, { method: 'POST', path: `/api/v1/jobs/${job.id}/cancel` }));
      await handle.cancel();
    }
    const end = await ending<DataQualityPipelineResult>(handle);
    await auditPipeline(l, name, ids, handle, end, expectedOf(stage, kind));
  }

  /** One promotion cell: export, preview (the first import) or apply (the second). */
  async function promotionCell(l: Ledger, stage: Stage, kind: Kind) {
    const ids = newCell();
    const name = `${stage} × ${kind}`;
    const before = (await w.controls.definitions(ids.target)).length;
    const importPath = `/test-suites/${ids.target}/test-definition-import`;
    const where =
      stage === 'export'
        ? { method: 'GET', path: `/test-suites/${ids.source}/test-definition-export` }
        : { method: 'POST', path: importPath, skip: stage === 'apply' ? 1 : 0 };
    await w.controls.addFault(faultOf(kind, stage, where));
    const handle = await start('dataops.promoteTestDefinitions', `${stage}-${kind}`, {
      source: { testSuiteId: ids.source },
      targetTestSuiteId: ids.target,
      preset: 'upsert',
      approval: { required: false },
    });
    const end = await ending<PromoteTestDefinitionsResult>(handle);
    const afterCount = (await w.controls.definitions(ids.target)).length;
    l.ended(name, end, expectedOf(stage, kind));
    if (end.outcome === 'ok')
      l.check(
        end.result?.applied?.summary.created === 3 && afterCount === before + 3,
        'falseReports',
        name,
        `reported ${JSON.stringify(end.result?.applied?.summary)}; target ${before} → ${afterCount}`,
      );
    else l.check(afterCount === before, 'falseReports', name, `failed, yet the target went ${before} → ${afterCount}`);
  }

  /** One order cell (orders share a recipe, so these run one at a time). */
  async function orderCell(l: Ledger, stage: Stage, kind: Kind) {
    const name = `${stage} × ${kind}`;
    const known = new Set((await w.controls.orders()).map((o) => o.id));
    const where =
      stage === 'order-create'
        ? { method: 'PUT', path: '/v2/order/create/production/refresh-marts/full' }
        : { method: 'POST', path: '/v2/order/details/production' };
    await w.controls.addFault(faultOf(kind, stage, where));
    const handle = await start('dataops.runOrder', `${stage}-${kind}`, {
      kitchen: 'production',
      recipe: 'refresh-marts',
      variation: 'full',
      wait: true,
      pollIntervalMs: 200,
    });
    const end = await ending<RunOrderResult>(handle);
    const fresh = (await w.controls.orders()).filter((o) => !known.has(o.id));
    l.ended(name, end, expectedOf(stage, kind));
    l.check(fresh.length <= 1, 'duplicates', name, `${fresh.length} orders`);
    const running = fresh.filter((o) => o.servings.some((s) => !ORDER_TERMINAL.has(s.status)));
    l.check(running.length === 0, 'orphans', name, `order runs still going: ${running.map((o) => o.id).join(', ')}`);
    if (end.outcome === 'ok') {
      l.check(end.result?.orderId === fresh[0]?.id, 'adopted', name, `reported order ${end.result?.orderId}`);
      l.check(
        end.result?.orderRun?.status === fresh[0]?.servings[0]?.status,
        'falseReports',
        name,
        `reported ${end.result?.orderRun?.status}, is ${fresh[0]?.servings[0]?.status}`,
      );
    }
  }

  describe('every fault kind × every pipeline and promotion stage, 16 cells at a time', { concurrency: 16 }, () => {
    for (const s of PIPELINE_STAGES) for (const k of KINDS) cell(`${s} × ${k}`, (l) => pipelineCell(l, s, k));
    for (const s of PROMOTION_STAGES) for (const k of KINDS) cell(`${s} × ${k}`, (l) => promotionCell(l, s, k));
  });

  describe('every fault kind × order create and order-run status (one at a time: orders share a recipe)', () => {
    for (const s of ORDER_STAGES) for (const k of KINDS) cell(`${s} × ${k}`, (l) => orderCell(l, s, k));
  });

  describe('every fault kind × the login that renews an expired session (one at a time: tokens are global)', () => {
    for (const kind of KINDS)
      cell(`login × ${kind}`, async (l) => {
        const ids = newCell();
        await w.controls.expireTokens();
        await w.controls.addFault(faultOf(kind, 'login', { method: 'POST', path: '/v2/login' }));
        const handle = await start('dataops.dataQualityPipeline', `login-${kind}`, pipelineArgs(ids));
        const end = await ending<DataQualityPipelineResult>(handle);
        await auditPipeline(l, `login × ${kind}`, ids, handle, end, expectedOf('login', kind));
      });
    // A login that fails before anything was sent is certain: the retry sends at once. It must not look for a job
    // it may have created, where the job of the run before it, on the same target, would match.
    for (const kind of ['status', 'delay'] as const)
      cell(`login × ${kind} on a target used just before`, async (l) => {
        const ids = newCell();
        const name = `login × ${kind}, target used before`;
        const first = await start('dataops.dataQualityPipeline', `login-used-${kind}-1`, pipelineArgs(ids));
        const firstEnd = await ending<DataQualityPipelineResult>(first);
        await w.controls.expireTokens();
        await w.controls.addFault(faultOf(kind, 'login', { method: 'POST', path: '/v2/login' }));
        const second = await start('dataops.dataQualityPipeline', `login-used-${kind}-2`, pipelineArgs(ids));
        const end = await ending<DataQualityPipelineResult>(second);
        l.ended(name, end, 'ok');
        const jobs = await jobsOf(ids);
        l.check(jobs.profiling.length === 2, 'duplicates', name, `${jobs.profiling.length} profiling jobs for 2 runs`);
        const reported = end.result?.profiling.job;
        l.check(
          reported !== undefined && reported.jobId !== firstEnd.result?.profiling.job.jobId,
          'adopted',
          name,
          `the second run reported ${reported?.jobId}, the first run's job`,
        );
        l.check(reported?.reconciled === false, 'falseReports', name, 'the retry looked for a job it never sent');
      });
  });

  for (const where of ['the same task queue', 'another task queue'] as const)
    cell(
      `a worker killed at submit before its send was recorded, on a target used just before (${where})`,
      async (l) => {
        // The worker dies after sending, before the record of its send reached Temporal (unrecorded-send.ts): its retry
        // reads the watermark back from the target's submitter. The job of the run before, on the same target, must be
        // neither taken nor counted, whether it went through the same submitter or another queue's.
        const ids = newCell();
        const name = `killed before its send was recorded, target used before (${where})`;
        const queue = `${QUEUE}-unrecorded-${where === 'the same task queue' ? 'same' : 'other'}`;
        const before = where === 'the same task queue' ? w.startWorker(queue) : undefined;
        const firstEnd = await ending<DataQualityPipelineResult>(
          await start(
            'dataops.dataQualityPipeline',
            `unrecorded-1-${queue}`,
            pipelineArgs(ids),
            before ? queue : QUEUE,
          ),
        );
        await before?.stop();
        const args = { ...pipelineArgs(ids), heartbeatTimeoutMs: 20_000 };
        const handle = await killedBeforeItsRecord(w, queue, `/table-groups/${ids.tableGroup}/profiling-runs`, () =>
          start('dataops.dataQualityPipeline', `unrecorded-2-${queue}`, args, queue),
        );
        const end = await ending<DataQualityPipelineResult>(handle);
        l.ended(name, end, 'ok');
        const jobs = await jobsOf(ids);
        l.check(jobs.profiling.length === 2, 'duplicates', name, `${jobs.profiling.length} profiling jobs for 2 runs`);
        const reported = end.result?.profiling.job.jobId;
        l.check(
          reported !== firstEnd.result?.profiling.job.jobId,
          'adopted',
          name,
          `reported ${reported}, the run before's`,
        );
      },
    );

  cell('a target reused at once', async (l) => {
    const reused = newCell();
    const first = await start('dataops.dataQualityPipeline', 'reuse-1', pipelineArgs(reused));
    const firstEnd = await ending<DataQualityPipelineResult>(first);
    await w.controls.addFault(
      faultOf('status', 'submit-profiling', {
        method: 'POST',
        path: `/table-groups/${reused.tableGroup}/profiling-runs`,
      }),
    );
    const second = await start('dataops.dataQualityPipeline', 'reuse-2', pipelineArgs(reused));
    const secondEnd = await ending<DataQualityPipelineResult>(second);
    l.cells++;
    l.check(
      firstEnd.outcome === 'ok' && secondEnd.outcome === 'ok',
      'wrongOutcomes',
      'reuse',
      `${firstEnd.failure ?? ''} ${secondEnd.failure ?? ''}`,
    );
    const jobs = await jobsOf(reused);
    l.check(jobs.profiling.length === 2, 'duplicates', 'reuse', `${jobs.profiling.length} profiling jobs for 2 runs`);
    l.check(
      secondEnd.result?.profiling.job.jobId !== firstEnd.result?.profiling.job.jobId,
      'adopted',
      'reuse',
      "the second run reported the first run's job",
    );
  });

  cell('two pipelines on one target with a lost answer', async (l) => {
    const shared = newCell();
    await w.controls.addFault(
      faultOf('drop_after_commit', 'submit-profiling', {
        method: 'POST',
        path: `/table-groups/${shared.tableGroup}/profiling-runs`,
      }),
    );
    const both = await Promise.all(
      [1, 2].map((n) => start('dataops.dataQualityPipeline', `two-${n}`, pipelineArgs(shared))),
    );
    const ends = await Promise.all(both.map((h) => ending<DataQualityPipelineResult>(h)));
    l.cells++;
    l.check(
      ends.every((e) => e.outcome === 'ok'),
      'wrongOutcomes',
      'two on one target',
      ends.map((e) => e.failure).join(' '),
    );
    const sharedJobs = await jobsOf(shared);
    const reported = ends.map((e) => e.result?.profiling.job.jobId);
    l.check(
      sharedJobs.profiling.length === 2,
      'duplicates',
      'two on one target',
      `${sharedJobs.profiling.length} profiling jobs`,
    );
    l.check(
      new Set(reported).size === 2 && reported.every((id) => sharedJobs.profiling.some((j) => j.id === id)),
      'adopted',
      'two on one target',
      `reported ${reported.join(', ')}`,
    );
  });

  cell('a worker killed with SIGKILL during a submit, a wait and a summary', async (l) => {
    const queue = `${QUEUE}-kill`;
    // Held requests (4 s) are still in flight when it dies: its timeout is longer than the hold.
    const slow = { DATAOPS_TIMEOUT_MS: '10000' };
    const victim = w.startWorker(queue, slow);
    const [atSubmit, atWait, atSummary] = [newCell(), newCell(), newCell()];
    const held = await w.controls.addFault({
      kind: 'delay',
      delay_ms: 4_000,
      method: 'POST',
      path: `/table-groups/${atSubmit.tableGroup}/profiling-runs`,
    });
    // Planned before the jobs exist, so a loaded machine cannot let a job end before the test is in place: the wait's
    // job runs long enough to be polled when the worker dies; the summary's job runs until its fault is in place.
    await w.controls.planJobs({ job_key: 'run-profile', target_id: atWait.tableGroup, durations: { runMs: 8_000 } });
    await w.controls.planJobs({
      job_key: 'run-profile',
      target_id: atSummary.tableGroup,
      durations: { runMs: 600_000 },
    });
    const handles = await Promise.all(
      [atSubmit, atWait, atSummary].map((ids, n) =>
        start('dataops.dataQualityPipeline', `kill-${n}`, pipelineArgs(ids), queue),
      ),
    );
    const waitJob = await firstJob(atWait, 'profiling');
    const summaryJob = await firstJob(atSummary, 'profiling');
    const summaryHeld = await w.controls.addFault({
      kind: 'delay',
      delay_ms: 4_000,
      method: 'GET',
      path: `/api/v1/profiling-runs/${summaryJob.id}`,
    });
    await w.controls.jobDurations({ runMs: 1_000 }, summaryJob.id);
    await eventually(
      'all three at their stage',
      async () => {
        const faults = await w.controls.faults();
        const hit = (id: string) => faults.find((f) => f.id === id)?.hits === 1;
        const polled = (await w.controls.requests()).some((r) => r.path === `/api/v1/jobs/${waitJob.id}`);
        return hit(held.id) && hit(summaryHeld.id) && polled;
      },
      { tries: 600, delayMs: 50 },
    );
    await victim.stop('SIGKILL');
    w.startWorker(queue, slow);
    for (const [n, ids] of [atSubmit, atWait, atSummary].entries())
      await auditPipeline(
        l,
        `worker killed at ${['submit', 'wait', 'summary'][n]}`,
        ids,
        handles[n]!,
        await ending<DataQualityPipelineResult>(handles[n]!),
        'ok',
      );
    // The dead worker was noticed by a heartbeat timeout (seconds), not the start-to-close timeout (minutes): the
    // attempt that carried on records how the one before it ended.
    const heartbeatTimeouts = async (h: WorkflowHandle) =>
      ((await h.fetchHistory()).events ?? []).filter((e) => {
        const a = e.activityTaskStartedEventAttributes;
        const type = a?.lastFailure?.timeoutFailureInfo?.timeoutType;
        return String(type) === '4' || String(type).includes('HEARTBEAT');
      }).length;
    assert.ok((await heartbeatTimeouts(handles[0]!)) >= 1, 'the submission: a heartbeat timeout');
    assert.ok((await heartbeatTimeouts(handles[2]!)) >= 1, 'the summary: a heartbeat timeout');
  });

  cell('Temporal restarts mid-wait, then the simulator restarts mid-wait', async (l) => {
    for (const which of ['temporal', 'simulator'] as const) {
      const ids = newCell();
      const handle = await start('dataops.dataQualityPipeline', `restart-${which}`, pipelineArgs(ids));
      const job = await firstJob(ids, 'profiling');
      await w.controls.jobDurations({ pendingMs: 200, claimMs: 100, runMs: 5_000, cancelMs: 200 }, job.id);
      await eventually('polled', async () =>
        (await w.controls.requests()).some((r) => r.path === `/api/v1/jobs/${job.id}`),
      );
      const proc = which === 'temporal' ? w.temporal : w.sim;
      await proc.kill();
      await new Promise((r) => setTimeout(r, 1_000));
      await proc.up();
      await auditPipeline(l, `${which} restart`, ids, handle, await ending<DataQualityPipelineResult>(handle), 'ok');
    }
  });

  test('totals: every cell ran; no duplicate, no adopted job, no orphan, no leak, no wrong or false report', () => {
    const totals = ledger.totals();
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    console.log(`fault matrix: ${JSON.stringify(totals)} in ${seconds} s`);
    for (const note of ledger.notes) console.log(`  ${note}`);
    assert.ok(totals.cells >= KINDS.length * 11 + 10, `every cell ran (${totals.cells})`);
    assert.deepEqual(
      { ...totals, cells: 0 },
      { cells: 0, duplicates: 0, adopted: 0, orphans: 0, leaks: 0, wrongOutcomes: 0, falseReports: 0 },
      ledger.notes.join('\n'),
    );
  });
});
