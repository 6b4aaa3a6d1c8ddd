/**
 * The fault matrix: real Temporal, simulator and worker processes. Every fault kind of the simulator × every stage it
 * can hit, worker SIGKILLs at submit, wait and summary, a Temporal restart, a simulator restart, a target reused at
 * once, and two pipelines on one target. Each cell asserts its outcome; the ledger counts duplicates, adopted jobs,
 * orphans, leaks after a cancel, wrong outcomes and false reports over the run, prints them, and requires zeros.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DataQualityPipelineResult } from '../../src/contract/index.js';
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
} from '../helpers/matrix.js';
import { ending } from '../helpers/ending.js';
import { ABOUT_A_SECOND, startWorld, type World } from '../helpers/matrix-world.js';
import { eventually } from '../helpers/wait.js';
import { matrixCells, type MatrixCells } from '../helpers/matrix-cells.js';
import { killedBeforeItsRecord } from '../helpers/unrecorded-send.js';

const QUEUE = 'matrix';
const LONG = { timeout: 15 * 60_000 };

describe('the fault matrix', () => {
  let w: World;
  let c: MatrixCells;
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
    c = matrixCells(w, QUEUE, newCell);
  }, LONG);
  after(async () => w?.close());

  describe('every fault kind × every pipeline and promotion stage, 16 cells at a time', { concurrency: 16 }, () => {
    for (const s of PIPELINE_STAGES) for (const k of KINDS) cell(`${s} × ${k}`, (l) => c.pipelineCell(l, s, k));
    for (const s of PROMOTION_STAGES) for (const k of KINDS) cell(`${s} × ${k}`, (l) => c.promotionCell(l, s, k));
  });

  describe('every fault kind × order create and order-run status (one at a time: orders share a recipe)', () => {
    for (const s of ORDER_STAGES) for (const k of KINDS) cell(`${s} × ${k}`, (l) => c.orderCell(l, s, k));
  });

  describe('every fault kind × the login that renews an expired session (one at a time: tokens are global)', () => {
    for (const kind of KINDS)
      cell(`login × ${kind}`, async (l) => {
        const ids = newCell();
        await w.controls.expireTokens();
        await w.controls.addFault(faultOf(kind, 'login', { method: 'POST', path: '/v2/login' }));
        const handle = await c.start('dataops.dataQualityPipeline', `login-${kind}`, c.pipelineArgs(ids));
        const end = await ending<DataQualityPipelineResult>(handle);
        await c.auditPipeline(l, `login × ${kind}`, ids, handle, end, expectedOf('login', kind));
      });
    // A login that fails before anything was sent is certain: the retry sends at once. It must not look for a job
    // it may have created, where the job of the run before it, on the same target, would match.
    for (const kind of ['status', 'delay'] as const)
      cell(`login × ${kind} on a target used just before`, async (l) => {
        const ids = newCell();
        const name = `login × ${kind}, target used before`;
        const first = await c.start('dataops.dataQualityPipeline', `login-used-${kind}-1`, c.pipelineArgs(ids));
        const firstEnd = await ending<DataQualityPipelineResult>(first);
        await w.controls.expireTokens();
        await w.controls.addFault(faultOf(kind, 'login', { method: 'POST', path: '/v2/login' }));
        const second = await c.start('dataops.dataQualityPipeline', `login-used-${kind}-2`, c.pipelineArgs(ids));
        const end = await ending<DataQualityPipelineResult>(second);
        l.ended(name, end, 'ok');
        const jobs = await c.jobsOf(ids);
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
          await c.start(
            'dataops.dataQualityPipeline',
            `unrecorded-1-${queue}`,
            c.pipelineArgs(ids),
            before ? queue : QUEUE,
          ),
        );
        await before?.stop();
        const args = { ...c.pipelineArgs(ids), heartbeatTimeoutMs: 20_000 };
        const handle = await killedBeforeItsRecord(w, queue, `/table-groups/${ids.tableGroup}/profiling-runs`, () =>
          c.start('dataops.dataQualityPipeline', `unrecorded-2-${queue}`, args, queue),
        );
        const end = await ending<DataQualityPipelineResult>(handle);
        l.ended(name, end, 'ok');
        const jobs = await c.jobsOf(ids);
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
    const first = await c.start('dataops.dataQualityPipeline', 'reuse-1', c.pipelineArgs(reused));
    const firstEnd = await ending<DataQualityPipelineResult>(first);
    await w.controls.addFault(
      faultOf('status', 'submit-profiling', {
        method: 'POST',
        path: `/table-groups/${reused.tableGroup}/profiling-runs`,
      }),
    );
    const second = await c.start('dataops.dataQualityPipeline', 'reuse-2', c.pipelineArgs(reused));
    const secondEnd = await ending<DataQualityPipelineResult>(second);
    l.cells++;
    l.check(
      firstEnd.outcome === 'ok' && secondEnd.outcome === 'ok',
      'wrongOutcomes',
      'reuse',
      `${firstEnd.failure ?? ''} ${secondEnd.failure ?? ''}`,
    );
    const jobs = await c.jobsOf(reused);
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
      [1, 2].map((n) => c.start('dataops.dataQualityPipeline', `two-${n}`, c.pipelineArgs(shared))),
    );
    const ends = await Promise.all(both.map((h) => ending<DataQualityPipelineResult>(h)));
    l.cells++;
    l.check(
      ends.every((e) => e.outcome === 'ok'),
      'wrongOutcomes',
      'two on one target',
      ends.map((e) => e.failure).join(' '),
    );
    const sharedJobs = await c.jobsOf(shared);
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

  cell('a worker killed with SIGKILL during a submit, a wait and a summary', (l) => c.killCell(l));

  cell('Temporal restarts mid-wait, then the simulator restarts mid-wait', async (l) => {
    for (const which of ['temporal', 'simulator'] as const) {
      const ids = newCell();
      const handle = await c.start('dataops.dataQualityPipeline', `restart-${which}`, c.pipelineArgs(ids));
      const job = await c.firstJob(ids, 'profiling');
      await w.controls.jobDurations({ pendingMs: 200, claimMs: 100, runMs: 5_000, cancelMs: 200 }, job.id);
      await eventually('polled', async () =>
        (await w.controls.requests()).some((r) => r.path === `/api/v1/jobs/${job.id}`),
      );
      const proc = which === 'temporal' ? w.temporal : w.sim;
      await proc.kill();
      await new Promise((r) => setTimeout(r, 1_000));
      await proc.up();
      await c.auditPipeline(l, `${which} restart`, ids, handle, await ending<DataQualityPipelineResult>(handle), 'ok');
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
