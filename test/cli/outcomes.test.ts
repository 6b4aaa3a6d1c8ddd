/**
 * The CLI says what happened, against the dev server and a worker: the failure at the root of the chain (not
 * "ActivityFailure: Activity task failed"), and `status` prints a closed workflow's result or failure.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { cli, sink } from '../helpers/cli.js';
import { eventually } from '../helpers/wait.js';
import { follow } from '../../src/cli/follow.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startDevServerEnv, type TestEnv } from '../helpers/temporal.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const FAST = { pendingMs: 50, claimMs: 20, runMs: 100, cancelMs: 50, interruptMs: 50 };
const MISSING = '00000000-0000-4000-8000-00000000dead';
/** `dataops promote` flags: the sales suites, upserted. */
const SALES_UPSERT = ['--from-suite', TS.salesDev, '--to-suite', TS.salesProd, '--preset', 'upsert'];

describe('CLI outcomes on the dev server', () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  let env: Record<string, string>;
  before(async () => {
    t = await startDevServerEnv();
    ({ sim } = await startTestSimulator({ jobDurations: FAST }));
    env = { TEMPORAL_ADDRESS: t.env.connection.options.address, DATAOPS_TEMPORAL_UI_URL: '' };
  });
  after(async () => {
    await sim?.close();
    await t?.env.teardown();
  });

  const pipeline = (taskQueue: string, workflowId: string, tableGroup: string, more: string[] = []) =>
    cli(
      [
        'pipeline',
        ...more,
        '--workflow-id',
        workflowId,
        '--table-group',
        tableGroup,
        '--test-suite',
        TS.financeProd,
        '--test-generation',
        'skip',
        '--poll-interval',
        '100ms',
      ],
      { ...env, TEMPORAL_TASK_QUEUE: taskQueue },
    );

  test('a failed activity prints its own failure type and message, and where it came from', async () => {
    await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const workflowId = `cli-fail-${taskQueue}`;
      const run = await pipeline(taskQueue, workflowId, MISSING);
      assert.equal(run.code, 1, run.err);
      assert.match(run.err, /^failed: NotFound: .*table group.*\(via activity dataops\.\w+; retryable: false\)$/m);
      assert.doesNotMatch(run.err, /Activity task failed/);

      const status = await cli(['status', workflowId], env);
      assert.equal(status.code, 0, status.err);
      assert.match(status.out, /status\s+FAILED/);
      assert.match(status.out, /failure\s+NotFound: .*via activity/);
      const json = JSON.parse((await cli(['status', workflowId, '--json'], env)).out) as {
        failure: { type: string; via: string[]; nonRetryable: boolean };
      };
      assert.equal(json.failure.type, 'NotFound');
      assert.equal(json.failure.nonRetryable, true);
      assert.match(json.failure.via[0] ?? '', /^activity /);

      // A promotion that fails before its preview: the same root cause, not "Workflow execution failed".
      const promote = await cli(
        ['promote', '--from-suite', MISSING, '--to-suite', TS.financeProd, '--preset', 'upsert'],
        {
          ...env,
          TEMPORAL_TASK_QUEUE: taskQueue,
        },
      );
      assert.equal(promote.code, 1, promote.err);
      assert.match(
        promote.err,
        /^failed: NotFound: .*\(via activity dataops\.exportTestDefinitions; retryable: false\)$/m,
      );
      assert.doesNotMatch(promote.err, /Workflow execution failed/);

      // With no worker on the task queue, it gives up waiting for the preview by the clock and says what goes on.
      const unanswered = await cli(['promote', ...SALES_UPSERT, '--preview-wait', '1s'], {
        ...env,
        TEMPORAL_TASK_QUEUE: `${taskQueue}-nobody`,
      });
      assert.equal(unanswered.code, 1, unanswered.err);
      assert.match(
        unanswered.err,
        new RegExp(
          `no preview within --preview-wait 1 s \\(is a worker polling task queue ${taskQueue}-nobody\\?\\); the promotion goes on: dataops status promoteTestDefinitions-`,
        ),
      );
    });
  });

  test('an id that names no workflow or schedule exits 6 and says so, whatever the command', async () => {
    for (const args of [
      ['status', 'no-such-workflow'],
      ['cancel', 'no-such-workflow'],
      ['approve', 'no-such-workflow', '--preview-id', 'p'],
      ['reject', 'no-such-workflow', '--reason', 'r'],
    ]) {
      const r = await cli(args, env);
      assert.equal(r.code, 6, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, /^error: no workflow no-such-workflow in namespace default$/m, args.join(' '));
    }
    const none = await cli(['schedule', 'list'], env);
    assert.equal(none.code, 0, none.err);
    assert.equal(none.out, 'no schedules in namespace default\n', 'an empty list says so');
    // A schedule's id given where a run's is needed: its runs have ids of their own, and the error says where to look.
    const scheduleId = `cli-not-a-run-${process.pid}`;
    const flags = ['--every', '1h', '--paused', '--table-group', TG.finance, '--test-suite', TS.financeProd];
    assert.equal((await cli(['schedule', 'create', scheduleId, ...flags], env)).code, 0);
    try {
      const r = await cli(['status', scheduleId], env);
      assert.equal(r.code, 6, r.err);
      assert.match(
        r.err,
        new RegExp(
          `^error: no workflow ${scheduleId} in namespace default \\(a schedule has that id: dataops schedule ` +
            `describe ${scheduleId} lists its runs\\)$`,
          'm',
        ),
      );
    } finally {
      assert.equal((await cli(['schedule', 'delete', scheduleId], env)).code, 0);
    }
    for (const command of ['describe', 'trigger', 'pause', 'unpause', 'delete']) {
      const r = await cli(['schedule', command, 'no-such-schedule'], env);
      assert.equal(r.code, 6, `schedule ${command}: ${r.err}`);
      assert.match(r.err, /^error: no schedule no-such-schedule in namespace default$/m, `schedule ${command}`);
      assert.doesNotMatch(r.err, /temporal-sys-scheduler/, 'not the internal workflow id of the schedule');
    }
  });

  test('approve and reject of a running workflow that is not a promotion exit 6, naming what it is', async () => {
    sim.controls.planJobs({ job_key: 'run-profile', target_id: TG.sales, durations: { runMs: 60_000 } });
    await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const workflowId = `cli-not-a-promotion-${taskQueue}`;
      const started = await pipeline(taskQueue, workflowId, TG.sales, ['--no-wait']);
      assert.equal(started.code, 0, started.err);
      for (const args of [
        ['approve', workflowId, '--preview-id', 'p'],
        ['reject', workflowId, '--reason', 'r'],
      ]) {
        const r = await cli(args, env);
        assert.equal(r.code, 6, `${args[0]}: ${r.err}`);
        assert.match(
          r.err,
          new RegExp(
            `^error: workflow ${workflowId} is a dataops\\.dataQualityPipeline: only a dataops\\.promoteTestDefinitions takes this decision$`,
            'm',
          ),
          `${args[0]}: not the SDK's "No registered handler for update"`,
        );
      }
      assert.equal((await cli(['cancel', workflowId, '--wait'], env)).code, 4, 'the pipeline went on until cancelled');
    });
  });

  test('an order whose run did not complete exits 8, from order --wait-for-run and from status --wait', async () => {
    await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const order = (variation: string) =>
        cli(
          ['order', '--kitchen', 'staging', '--recipe', 'load-warehouse', '--variation', variation, '--wait-for-run'],
          { ...env, TEMPORAL_TASK_QUEUE: taskQueue },
        );
      const failed = await order('broken');
      assert.equal(failed.code, 8, failed.out + failed.err);
      assert.match(failed.out, /^order run +\S+ SERVING_ERROR$/m);
      const workflowId = /^started dataops\.runOrder (\S+)$/m.exec(failed.out)?.[1];
      assert.ok(workflowId, failed.out);
      assert.equal((await cli(['status', workflowId, '--wait'], env)).code, 8, 'as the command that started it');
      const completed = await order('daily');
      assert.equal(completed.code, 0, completed.out + completed.err);
      assert.match(completed.out, /^order run +\S+ COMPLETED_SERVING$/m);
    });
  });

  test('status prints the result of a completed workflow', async () => {
    await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const workflowId = `cli-ok-${taskQueue}`;
      const run = await pipeline(taskQueue, workflowId, TG.finance);
      assert.equal(run.code, 0, run.err);
      const status = await cli(['status', workflowId], env);
      assert.equal(status.code, 0, status.err);
      assert.match(status.out, /status\s+COMPLETED/);
      assert.match(status.out, /result:\nverdict\s+PASSED/);
      assert.match(status.out, /test score\s+\d+(\.\d+)? %/);
      // No gate given: the run passes whatever it found, and says so instead of "all passed".
      for (const out of [run.out, status.out])
        assert.match(
          out,
          /^gates\s+none set, so every run passes \(--min-score-percent, --max-failed, --max-errors\)$/m,
        );
      const gated = `${workflowId}-gated`;
      const limits = [
        '--min-score-percent',
        '1',
        '--max-errors',
        '100',
        '--max-failed',
        '100',
        '--warnings-as-failures',
      ];
      const withGates = await pipeline(taskQueue, gated, TG.finance, limits);
      assert.equal(withGates.code, 0, withGates.err);
      const gatedStatus = await cli(['status', gated], env);
      for (const out of [withGates.out, gatedStatus.out])
        assert.match(out, /^gates\s+passed: score ≥ 1 %, failed \+ warnings ≤ 100, errors ≤ 100$/m);
      const json = JSON.parse((await cli(['status', workflowId, '--json'], env)).out) as {
        result: { status: string };
      };
      assert.equal(json.result.status, 'passed');
      // A closed workflow's id may be used again; a running one's is refused, naming the flag.
      const nobody = { ...env, TEMPORAL_TASK_QUEUE: `${taskQueue}-nobody` };
      const args = ['profile', '--table-group', TG.finance, '--workflow-id', `${workflowId}-again`, '--no-wait'];
      assert.equal((await cli(args, nobody)).code, 0);
      const again = await cli(args, nobody);
      assert.equal(again.code, 2, again.err);
      assert.match(
        again.err,
        new RegExp(`^error: --workflow-id: workflow ${workflowId}-again is already running`, 'm'),
      );
      // Its status comes without a progress query answered, saying why, instead of waiting the server's 30 s.
      const unanswered = await cli(['status', `${workflowId}-again`], nobody);
      assert.equal(unanswered.code, 0, unanswered.err);
      assert.match(
        unanswered.out,
        new RegExp(
          `^progress\\s+no worker answered within 5 s \\(is one polling task queue ${taskQueue}-nobody\\?\\)$`,
          'm',
        ),
      );
      await t.env.client.workflow.getHandle(`${workflowId}-again`).terminate('test over');
      // The server takes a cancel of a closed workflow without a word, and answers an update to it "not found".
      const cancel = await cli(['cancel', workflowId], env);
      assert.equal(cancel.code, 6, cancel.err);
      assert.match(
        cancel.err,
        new RegExp(`^error: workflow ${workflowId} has already closed \\(COMPLETED\\); nothing was cancelled$`, 'm'),
      );
      assert.doesNotMatch(cancel.out, /cancel requested/);
      for (const args of [
        ['approve', workflowId, '--preview-id', 'p'],
        ['reject', workflowId, '--reason', 'r'],
      ]) {
        const r = await cli(args, env);
        assert.equal(r.code, 6, `${args[0]}: ${r.err}`);
        assert.match(r.err, new RegExp(`^error: workflow ${workflowId} has already closed \\(COMPLETED\\)$`, 'm'));
      }
    });
  });

  test('--follow says it waits for a worker while none answers, and ends when the workflow closes', async () => {
    const taskQueue = `follow-nobody-${process.pid}`;
    const handle = await t.env.client.workflow.start('dataops.profileTableGroup', {
      taskQueue,
      workflowId: `cli-follow-${taskQueue}`,
      args: [{ tableGroupId: TG.finance }],
    });
    let out = '';
    const following = follow(
      handle,
      sink((s) => (out += s)),
      100,
    );
    await eventually('the waiting line', () => out.includes('\n') || undefined, { tries: 200, delayMs: 100 });
    assert.equal(out, `[waiting] no worker has answered yet (task queue ${taskQueue})\n`);
    await handle.terminate('test over');
    await following; // ends once the workflow has closed
  });

  test('connects through a profile of temporal.toml (--profile), and names a profile that is not there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-toml-'));
    const toml = join(dir, 'temporal.toml');
    const address = t.env.connection.options.address;
    writeFileSync(toml, `[profile.default]\naddress = "localhost:1"\n\n[profile.ops]\naddress = "${address}"\n`);
    const byProfile = { TEMPORAL_CONFIG_FILE: toml, DATAOPS_TEMPORAL_UI_URL: '' };
    await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const workflowId = `cli-profile-${taskQueue}`;
      const args = ['--profile', 'ops', 'pipeline', '--workflow-id', workflowId, '--table-group', TG.finance];
      const run = await cli([...args, '--test-suite', TS.financeProd, '--test-generation', 'skip'], {
        ...byProfile,
        TEMPORAL_TASK_QUEUE: taskQueue,
      });
      assert.equal(run.code, 0, run.err);
      const status = await cli(['--profile', 'ops', 'status', workflowId], byProfile);
      assert.match(status.out, /status\s+COMPLETED/);
    });
    const missing = await cli(['--profile', 'staging', 'status', 'any'], byProfile);
    assert.equal(missing.code, 2, missing.err);
    assert.match(missing.err, /temporal\.toml, profile staging: Profile 'staging' not found/);
  });
});
