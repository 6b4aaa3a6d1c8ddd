/**
 * The scale issue's bound on history (50 events per pipeline at any job length; 60 with an order besides its two
 * jobs), with the live status reports: on
 * the dev server, with the search attributes registered, as in production. A job interrupted again and again must not
 * grow its pipeline's history; the reports it may send are bounded by `statusReports`, and progress says when they
 * are spent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { progressQuery } from '../../src/contract/index.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { ensureSearchAttributes } from '../../src/setup/search-attributes.js';
import {
  SHAPES_SIMULATOR,
  describeEvents,
  interrupting,
  pipelineShapes,
  runPipeline,
} from '../helpers/history-shapes.js';
import { scheduledActivities } from '../helpers/fresh-run.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startDevServerEnv, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;
const HOUR = 3_600_000;
const [plain, generating] = pipelineShapes(TG);

describe('history bounds with live status (dev server, search attributes)', () => {
  let d: TestEnv;
  let sim: RunningSimulator;
  before(async () => {
    d = await startDevServerEnv();
    await ensureSearchAttributes(d.env.connection, d.env.namespace ?? 'default');
    ({ sim } = await startTestSimulator(SHAPES_SIMULATOR));
  });
  after(async () => {
    await sim?.close();
    await d?.env.teardown();
  });

  /** Runs the pipeline with `input`, acting on the simulator meanwhile; returns its history's events and reports. */
  async function pipeline(
    input: Record<string, unknown>,
    during?: (handle: { query: () => Promise<unknown> }) => Promise<void>,
  ) {
    const run = await runPipeline(
      d.env,
      sim,
      input,
      (handle) => during?.({ query: () => handle.query(progressQuery) }) ?? Promise.resolve(),
    );
    return { events: run.events.length, reports: describeEvents(run.events).reports, progress: run.progress };
  }

  test('a profiling run interrupted twice adds no event: one report per job, as without interrupts', async () => {
    assert.ok(plain);
    const uninterrupted = await pipeline(plain.input);
    sim.controls.planJobs({ job_key: 'run-profile', target_id: TG.finance, durations: { runMs: HOUR }, count: 1 });
    // Each status held past the reports' 5-second spacing, so that only the bound can keep a change unreported.
    const interrupted = await pipeline({ ...plain.input, expectedDurationMs: HOUR }, () =>
      interrupting(TG.finance, 2)(sim, (what, check) => eventually(what, check)),
    );
    assert.equal(interrupted.progress.interrupts, 2, 'both interrupts counted in the result');
    assert.equal(uninterrupted.reports, 2, 'running, once per job');
    assert.equal(interrupted.reports, 2, 'the interrupts and resumptions were not reported: the budget was spent');
    assert.equal(interrupted.events, uninterrupted.events, 'the same history, interrupted or not');
    assert.ok(interrupted.events <= 50, `${interrupted.events} events`);
  });

  test('with statusReports 3, progress shows the interrupt live, then says its reports are spent', async () => {
    assert.ok(plain);
    sim.controls.planJobs({ job_key: 'run-profile', target_id: TG.finance, durations: { runMs: HOUR }, count: 1 });
    type Seen = { jobs: { status: string | null; live: boolean; statusAt: string | null }[]; interrupts: number };
    const run = await pipeline({ ...plain.input, expectedDurationMs: HOUR, statusReports: 3 }, async (handle) => {
      const profiling = async () => ((await handle.query()) as Seen).jobs[0];
      const first = await eventually('the running report', async () => {
        const j = await profiling();
        return j?.status === 'running' ? j : undefined;
      });
      assert.equal(first.live, true, 'two reports left');
      const job = sim.controls.jobs().find((j) => j.job_key === 'run-profile' && j.status === 'running');
      assert.ok(job);
      sim.controls.shutdownScheduler();
      const interrupted = await eventually('the interrupted report', async () => {
        const p = (await handle.query()) as Seen;
        return p.jobs[0]?.status === 'interrupted' ? p : undefined;
      });
      assert.equal(interrupted.jobs[0]?.live, true, 'one report left');
      assert.equal(interrupted.interrupts, 1, 'the interrupt counted live');
      assert.ok(Date.parse(interrupted.jobs[0]?.statusAt ?? '') >= Date.parse(first.statusAt ?? ''));
      sim.controls.restartScheduler();
      const resumed = await eventually('the last report', async () => {
        const j = await profiling();
        return j?.status === 'running' ? j : undefined;
      });
      assert.equal(resumed.live, false, 'the budget is spent: progress says the status is as of statusAt');
      sim.controls.setJobDurations({ runMs: 0 }, job.id);
    });
    assert.equal(run.reports, 4, 'three for the profiling run, one for the test run');
    assert.ok(
      run.progress.jobs.every((j) => !j.live),
      'no job is live once its wait has ended',
    );
  });

  test("a table group's first pipeline on TestGen: the generation follow-up within the bound, live status on", async () => {
    assert.ok(generating);
    const run = await pipeline(generating.input);
    assert.deepEqual(
      run.progress.jobs.map((j) => j.role),
      ['profiling', 'generation', 'test_run'],
    );
    assert.equal(
      run.reports,
      2,
      'profiling and the test run, running; the follow-up was followed by the profiling wait',
    );
    assert.ok(run.events <= 50, `${run.events} events`);
  });

  test('an order, then profiling and tests: within the bound, each job asked for, then waited for', async () => {
    const ordered = pipelineShapes(TG).find((s) => s.name === 'order, profile, tests');
    assert.ok(ordered);
    const run = await runPipeline(d.env, sim, ordered.input);
    assert.deepEqual(
      run.events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []),
      [
        'dataops.runOrder',
        'dataops.waitForOrderRun',
        'dataops.submitProfilingRun',
        'dataops.waitForJob',
        'dataops.submitTestRun',
        'dataops.waitForJob',
      ],
    );
    assert.equal(describeEvents(run.events).reports, 2, 'the live reports are kept');
    // Three writes, each asked for by an activity of its own (6 events each) before its wait: 55 events, constant
    // whatever the jobs' length.
    assert.ok(run.events.length <= 60, `${run.events.length} events`);
  });

  test("a generation follow-up that outlasts the profiling wait's window, waited for by the workflow: within the bound", async () => {
    const long = pipelineShapes(TG).find((s) => s.name === 'profile, long generation, tests');
    assert.ok(long);
    // The follow-up comes after a table group's first completed profiling run: a fresh simulator.
    const { sim: fresh } = await startTestSimulator(SHAPES_SIMULATOR);
    try {
      long.before?.(fresh);
      const run = await runPipeline(d.env, fresh, long.input);
      assert.deepEqual(
        scheduledActivities(run.events),
        ['waitForJob', 'waitForJob', 'waitForJob'],
        'profiling, the follow-up, the test run: each its own wait',
      );
      assert.ok(run.events.length <= 50, `${run.events.length} events`);
    } finally {
      await fresh.close();
    }
  });
});
