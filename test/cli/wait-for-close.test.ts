/**
 * A run the CLI did not start and wait for (a schedule's, another service's, one started with `--no-wait`) can be
 * waited for afterwards: `status --wait` (or `--follow`) and `cancel --wait` block until it has closed, show how it
 * ended, and exit as the command that started it would have. A wait says why a run does not move: no worker has taken
 * it up, or a write of it is being retried. Against the dev server, a worker and the simulator.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { describeLive, liveProgress } from '../../src/cli/follow.js';
import { noWorkerYet } from '../../src/cli/query.js';
import { runCli } from '../../src/starter.js';
import { cli, sink } from '../helpers/cli.js';
import { dist, failIfExited, startProcess } from '../helpers/processes.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { submitterAt } from '../helpers/sim.js';
import { deploymentsOf } from '../../src/exactly-once/messages.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;

describe('waiting for a run started elsewhere', () => {
  const s = devServerAndSimulator({
    jobDurations: { pendingMs: 50, claimMs: 20, runMs: 1_500, cancelMs: 50, interruptMs: 50 },
  });
  const env = () => ({
    TEMPORAL_ADDRESS: s.d.env.connection.options.address,
    DATAOPS_TEMPORAL_UI_URL: '',
    DATAOPS_BASE_URL: s.sim.url,
  });

  /**
   * Runs in-process CLI commands with their output kept (search attributes off: no worker has registered them on this
   * server yet, and the refusal would be a warning too).
   */
  const capturing = () => {
    const seen = { out: '', err: '' };
    const io = {
      out: sink((t) => (seen.out += t)),
      err: sink((t) => (seen.err += t)),
      env: { ...env(), DATAOPS_SEARCH_ATTRIBUTES: 'off' },
    };
    return { seen, io };
  };

  /** Starts a finance pipeline without waiting; `more` are further flags. */
  const startPipeline = async (taskQueue: string, workflowId: string, more: string[] = []) => {
    const flags = `--table-group ${TG.finance} --test-suite ${TS.financeProd} --test-generation skip --poll-interval 100ms`;
    const started = await cli(['pipeline', '--no-wait', '--workflow-id', workflowId, ...flags.split(' '), ...more], {
      ...env(),
      TEMPORAL_TASK_QUEUE: taskQueue,
    });
    assert.equal(started.code, 0, started.err);
  };

  test('status --follow shows progress until the pipeline ends, then its result; --wait exits as it ended', async () => {
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const passing = `wait-pass-${taskQueue}`;
      await startPipeline(taskQueue, passing);
      const followed = await cli(['status', passing, '--follow'], env());
      assert.equal(followed.code, 0, followed.err);
      // Live lines while it ran (not a TTY: one line each), then the closed workflow and its result.
      assert.match(followed.out, /^\[\s*\d+ s\] waiting for profiling/m);
      assert.match(followed.out, /^status\s+COMPLETED$/m);
      assert.match(followed.out, /^result:\n/m);
      // With --json, the live lines go to stderr and stdout is one JSON document (here of a closed run: one line).
      const asJson = await cli(['status', passing, '--follow', '--json'], env());
      assert.equal(asJson.code, 0, asJson.err);
      assert.equal((JSON.parse(asJson.out) as { status: string }).status, 'COMPLETED');
      assert.match(asJson.err, /^\[\s*\d+ s\] /m);
      // So for a starting command.
      const started = await cli(
        ['profile', '--table-group', TG.finance, '--poll-interval', '100ms', '--follow', '--json'],
        { ...env(), TEMPORAL_TASK_QUEUE: taskQueue },
      );
      assert.equal(started.code, 0, started.err);
      assert.ok((JSON.parse(started.out) as { job: { jobId: string } }).job.jobId);
      assert.match(started.err, /^\[\s*\d+ s\] /m);
      // The finance suite has a failed test: with no failures allowed and the gates only reported, the pipeline
      // completes, and a status waited for exits 3 as `dataops pipeline` itself would; shown without waiting, 0.
      const failing = `wait-gates-${taskQueue}`;
      await startPipeline(taskQueue, failing, ['--max-failed', '0', '--on-gate-failure', 'report']);
      const waited = await cli(['status', failing, '--wait', '--json'], env());
      assert.equal(waited.code, 3, waited.err);
      const json = JSON.parse(waited.out) as { status: string; result: { status: string } };
      assert.deepEqual([json.status, json.result.status], ['COMPLETED', 'failed']);
      assert.equal((await cli(['status', failing], env())).code, 0);
    });
  });

  test('cancel --wait ends when the workflow has, shows the remote job cancelled, and exits 4', async () => {
    s.sim.controls.setJobDurations({ runMs: 600_000 });
    try {
      await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
        const workflowId = `wait-cancel-${taskQueue}`;
        await startPipeline(taskQueue, workflowId);
        const handle = s.d.env.client.workflow.getHandle(workflowId);
        // Until its profiling job is known, a cancel has no job to cancel yet; the case here is a job running.
        await eventually('the profiling job', async () => {
          const running = await cli(['status', workflowId, '--json'], env());
          return (JSON.parse(running.out) as { progress: { jobs: unknown[] } | null }).progress?.jobs[0];
        });
        const cancelled = await cli(['cancel', workflowId, '--wait'], env());
        assert.equal(cancelled.code, 4, cancelled.err);
        assert.match(cancelled.out, /^cancel requested: /m);
        assert.match(cancelled.out, /^status\s+CANCELLED$/m);
        const jobId = /^remote cancel\s+(\S+) canceled$/m.exec(cancelled.out)?.[1];
        assert.ok(jobId, cancelled.out);
        assert.equal(s.sim.controls.jobs().find((j) => j.id === jobId)?.status, 'canceled');
        assert.equal((await handle.describe()).status.name, 'CANCELLED');
      });
    } finally {
      s.sim.controls.setJobDurations({ runMs: 1_500 });
    }
  });

  // A run whose target's submitter retried through an outage read `submitting profiling`, error `-`, for up to 6 h.
  test("status names the call being retried and where: the target's submitter retrying a login that answers 503", async () => {
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const workflowId = `cli-retrying-${taskQueue}`;
      const submitter = submitterAt(s.sim.url, taskQueue, 'profiling', TG.finance);
      s.sim.controls.addFault({ kind: 'status', status: 503, method: 'POST', path: '/v2/login', count: 1_000 });
      try {
        const args = ['--task-queue', taskQueue, 'profile', '--table-group', TG.finance, '--workflow-id', workflowId];
        const started = await cli([...args, '--no-wait'], env());
        assert.equal(started.code, 0, started.err);
        const shown = await eventually(
          'a retried login',
          async () => {
            const out = (await cli(['status', workflowId], env())).out;
            return /^retrying +\S+ attempt [2-9]/m.test(out) ? out : undefined;
          },
          { tries: 100, delayMs: 200 },
        );
        assert.match(shown, /^stage +submitting profiling$/m);
        assert.match(
          shown,
          new RegExp(`^retrying +dataops\\.sendInTurn attempt \\d+: .*503.* \\(in its submitter ${submitter}\\)$`, 'm'),
        );
        const json = JSON.parse((await cli(['status', workflowId, '--json'], env())).out) as { retrying: string };
        assert.match(json.retrying, /^dataops\.sendInTurn attempt \d+: .*503/);
        const handle = s.d.env.client.workflow.getHandle(workflowId);
        const { live } = await liveProgress(handle, undefined, undefined, deploymentsOf(s.sim.url));
        assert.match(
          describeLive(live),
          /\] submitting profiling · polls 0 · retrying dataops\.sendInTurn attempt \d+: .*503/,
        );
      } finally {
        s.sim.controls.clearFaults();
      }
      const done = await cli(['status', workflowId, '--wait'], env());
      assert.equal(done.code, 0, done.err);
      assert.match(done.out, /^status +COMPLETED$/m);
      assert.match(done.out, /^retrying +-$/m, 'a closed run retries nothing');
    });
  });

  // A wait without --follow said nothing at all: a worker not started, or another task queue, looked like a long run.
  test('a wait says once when no worker has taken the run up, naming the task queue, and ends with the run once one has', async () => {
    const taskQueue = `wait-nobody-${process.pid}`;
    const workflowId = `cli-wait-${taskQueue}`;
    const { seen, io } = capturing();
    const starting = runCli(
      ['--task-queue', taskQueue, 'profile', '--table-group', TG.finance, '--workflow-id', workflowId],
      io,
    );
    await eventually('the start', () => seen.out.includes('started') || undefined);
    const waiting = runCli(['status', workflowId, '--wait'], io); // a run started elsewhere, waited for
    const warning =
      `warning: no worker has taken up ${workflowId} in 10 s: is one polling task queue ${taskQueue} of this ` +
      `namespace? It runs once one does (Ctrl+C leaves it waiting; dataops status ${workflowId})\n`;
    await eventually('both warnings', () => seen.err === warning.repeat(2) || undefined, { tries: 300, delayMs: 100 });
    const handle = s.d.env.client.workflow.getHandle(workflowId);
    assert.equal(noWorkerYet(await handle.describe()), true);
    const codes = await withProjectWorker(
      s.d.env,
      await simDeps(s.sim),
      () => Promise.all([starting, waiting]),
      taskQueue,
    );
    assert.deepEqual(codes, [0, 0], seen.err);
    assert.match(seen.out, /^job +[\w-]+ completed$/m);
    assert.match(seen.out, /^status +COMPLETED$/m);
    assert.equal(noWorkerYet(await handle.describe()), false, 'closed');
    assert.equal(seen.err, warning.repeat(2), 'each said once');
    // Taken up and still running (a promotion waiting for its approval): no warning is due.
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (queue) => {
      const promotion = await s.d.env.client.workflow.start('dataops.promoteTestDefinitions', {
        taskQueue: queue,
        workflowId: `cli-wait-taken-${queue}`,
        args: [{ source: { testSuiteId: TS.salesDev }, targetTestSuiteId: TS.salesProd, preset: 'upsert' }],
      });
      await eventually(
        'the first workflow task',
        async () => (await promotion.describe()).historyLength > 2 || undefined,
      );
      assert.equal(noWorkerYet(await promotion.describe()), false);
      await promotion.terminate('test over');
    });
  });

  // An approval or rejection with no worker on the run's queue waited in silence for ever.
  test('a decision no worker answers says so once, naming the task queue, and is answered once one polls', async () => {
    const taskQueue = `decide-nobody-${process.pid}`;
    const workflowId = `cli-decide-${taskQueue}`;
    const { seen, io } = capturing();
    const promote = ['promote', '--from-suite', TS.salesDev, '--to-suite', TS.salesProd, '--preset', 'upsert'];
    const flags = ['--task-queue', taskQueue];
    assert.equal(await runCli([...flags, ...promote, '--no-wait', '--workflow-id', workflowId], io), 0, seen.err);
    const deciding = runCli(['reject', workflowId, '--reason', 'not this week'], io);
    const warning =
      `warning: no worker has answered the decision for ${workflowId} in 10 s: is one polling task queue ` +
      `${taskQueue} of this namespace? The server holds it for the next worker while this waits (Ctrl+C stops ` +
      `waiting and may drop it; dataops status ${workflowId} shows what was decided)\n`;
    await eventually('the warning', () => seen.err === warning || undefined, { tries: 300, delayMs: 100 });
    await withProjectWorker(
      s.d.env,
      await simDeps(s.sim),
      async () => {
        // The worker that polls answers the decision that waited: the promotion, only just starting, refuses it.
        assert.equal(await deciding, 7, seen.err);
        assert.match(seen.err, /^refused: PreviewNotReady: /m);
        assert.equal(seen.err.split('warning:').length, 2, 'said once');
        await eventually('the preview', async () =>
          (await cli(['status', workflowId], env())).out.includes('preview '),
        );
        assert.equal(await runCli(['reject', workflowId, '--reason', 'not this week'], io), 0, seen.err);
        assert.equal((await cli(['status', workflowId, '--wait'], env())).code, 5, 'rejected');
      },
      taskQueue,
    );
  });
  // Ctrl+C ended the CLI in silence: nobody could tell whether the pipeline had been cancelled with it.
  test('Ctrl+C while a command waits says the run goes on and how to follow or cancel it, and exits 130', async () => {
    const taskQueue = `interrupted-${process.pid}`; // no worker: the run waits as long as the test needs
    const workflowId = `cli-interrupted-${taskQueue}`;
    const processEnv = { ...env(), TEMPORAL_TASK_QUEUE: taskQueue, DATAOPS_SEARCH_ATTRIBUTES: 'off' };
    const flags = ['--table-group', TG.finance, '--test-suite', TS.financeProd, '--workflow-id', workflowId];
    const said =
      `stopped waiting; ${workflowId} goes on (dataops status ${workflowId} --follow follows it again, ` +
      `dataops cancel ${workflowId} cancels it)`;
    for (const [args, ready] of [
      // Each marker is printed from inside the wait: the follow's line while no worker answers, and the warning
      // that no worker has taken the run up (after 10 s).
      [['pipeline', ...flags, '--follow'], '[waiting] no worker has answered yet'],
      [['status', workflowId, '--wait'], 'warning: no worker has taken up'],
    ] as const) {
      const waiting = startProcess([dist('starter.js'), ...args], processEnv);
      try {
        await eventually(`${args[0]} waiting`, () => {
          failIfExited(waiting.child, args[0], waiting.output());
          return waiting.output().includes(ready) || undefined;
        });
        waiting.child.kill('SIGINT');
        assert.equal(await waiting.exited, 130, waiting.output());
        assert.ok(waiting.output().includes(`\n${said}\n`), waiting.output());
      } finally {
        await waiting.stop();
      }
    }
    const handle = s.d.env.client.workflow.getHandle(workflowId);
    assert.equal((await handle.describe()).status.name, 'RUNNING', 'the run goes on');
    await handle.terminate('test over');
  });
});
