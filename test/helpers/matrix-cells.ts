/**
 * The fault matrix's cells (test/e2e/fault-matrix.test.ts): how a pipeline, promotion or order cell puts its fault in
 * place, runs its workflow, and audits what became of its jobs in the ledger; and the pieces the matrix's other
 * scenarios share (start a workflow, a cell's jobs, its first job, a pipeline's input).
 */
import assert from 'node:assert/strict';
import type { WorkflowHandle } from '@temporalio/client';
import {
  progressQuery,
  type DataQualityPipelineResult,
  type PromoteTestDefinitionsResult,
  type RunOrderResult,
} from '../../src/contract/index.js';
import { isTerminalJobStatus, isTerminalOrderRunStatus } from '../../src/vocabulary.js';
import { expectedOf, faultOf, type cellIds, type Kind, type Ledger, type Outcome, type Stage } from './matrix.js';
import { ending } from './ending.js';
import type { World } from './matrix-world.js';
import { eventually } from './wait.js';
import { submitterAt } from './sim.js';

/** A cell's own targets (cellIds). */
export type CellIds = ReturnType<typeof cellIds>;

/** The cells of world `w`, started on `queue`; `newCell` gives each cell targets of its own. */
export function matrixCells(w: World, queue: string, newCell: () => CellIds) {
  const start = (type: string, id: string, args: unknown, taskQueue = queue) =>
    w.client.workflow.start(type, { taskQueue, workflowId: `mx-${id}-${Date.now()}`, args: [args] });
  const jobsOf = async (ids: CellIds) => {
    const all = await w.controls.jobs();
    return {
      profiling: all.filter((j) => j.job_key === 'run-profile' && j.table_group_id === ids.tableGroup),
      tests: all.filter((j) => j.job_key === 'run-tests' && j.test_suite_id === ids.target),
    };
  };
  // A hang guard, not a speed check: a killed worker's submission lands after its heartbeat timeout and a new
  // worker's retry, which a loaded machine (the CI runs 16 cells at a time) can stretch past the default 30 s.
  const firstJob = (ids: CellIds, key: 'profiling' | 'tests') =>
    eventually(`the ${key} job`, async () => (await jobsOf(ids))[key][0], { tries: 4_800 });
  const pipelineArgs = (ids: CellIds) => ({
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
    ids: CellIds,
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
        return [...j.profiling, ...j.tests].every((x) => isTerminalJobStatus(x.status)) ? j : undefined;
      },
      { tries: 100, delayMs: 100 },
    ).catch(() => undefined);
    const jobs = settled ?? (await jobsOf(ids));
    l.check(jobs.profiling.length <= 1, 'duplicates', name, `${jobs.profiling.length} profiling jobs`);
    l.check(jobs.tests.length <= 1, 'duplicates', name, `${jobs.tests.length} test runs`);
    const running = [...jobs.profiling, ...jobs.tests].filter((x) => !isTerminalJobStatus(x.status));
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
    // The test run to cancel runs a minute from its creation: slowed only once found, a loaded machine let one end
    // first (CI run 101), and the pipeline then rightly completed.
    if (stage === 'cancel')
      await w.controls.planJobs({ job_key: 'run-tests', target_id: ids.target, durations: { runMs: 60_000 } });
    const handle = await start('dataops.dataQualityPipeline', `${stage}-${kind}`, pipelineArgs(ids));
    if (stage === 'poll' || stage === 'summary') {
      const job = await firstJob(ids, 'profiling');
      const path = stage === 'poll' ? `/api/v1/jobs/${job.id}` : `/api/v1/profiling-runs/${job.id}`;
      await w.controls.addFault(faultOf(kind, stage, { method: 'GET', path }));
      if (stage === 'summary') await w.controls.jobDurations({ runMs: 1_000 }, job.id);
    }
    if (stage === 'cancel') {
      const job = await firstJob(ids, 'tests');
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
    const running = fresh.filter((o) => o.servings.some((s) => !isTerminalOrderRunStatus(s.status)));
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

  /**
   * Three pipelines on a worker of their own, killed with SIGKILL while one submits, one waits and one fetches its
   * summary; a new worker carries all three on.
   */
  async function killCell(l: Ledger) {
    const killQueue = `${queue}-kill`;
    // Held requests (4 s) are still in flight when it dies: its timeout is longer than the hold.
    const slow = { DATAOPS_TIMEOUT_MS: '10000' };
    const victim = w.startWorker(killQueue, slow);
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
        start('dataops.dataQualityPipeline', `kill-${n}`, pipelineArgs(ids), killQueue),
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
    w.startWorker(killQueue, slow);
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
    // The submission was being sent by its target's submitter's batch (its ask holds no worker): that batch's retry.
    const submitter = w.client.workflow.getHandle(
      submitterAt(w.controls.url, killQueue, 'profiling', atSubmit.tableGroup),
    );
    assert.ok((await heartbeatTimeouts(submitter)) >= 1, "the submission's batch: a heartbeat timeout");
    assert.ok((await heartbeatTimeouts(handles[2]!)) >= 1, 'the summary: a heartbeat timeout');
  }

  return { start, jobsOf, firstJob, pipelineArgs, auditPipeline, pipelineCell, promotionCell, orderCell, killCell };
}

/** What `matrixCells` gives. */
export type MatrixCells = ReturnType<typeof matrixCells>;
