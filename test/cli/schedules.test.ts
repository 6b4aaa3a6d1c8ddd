/**
 * `dataops schedule` on the dev server: a schedule run now (`trigger`) under its own overlap policy, and what became
 * of each trigger; a schedule described as it was given (cron fields or an interval, its time zone, its recent runs);
 * the notes pause and unpause leave.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SEED_IDS } from '../../src/simulator/index.js';
import { cli } from '../helpers/cli.js';
import { startDevServerEnv, type TestEnv } from '../helpers/temporal.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;

describe('schedules on the dev server', () => {
  let t: TestEnv;
  let env: Record<string, string>;
  before(async () => {
    t = await startDevServerEnv();
    env = { TEMPORAL_ADDRESS: t.env.connection.options.address, DATAOPS_TEMPORAL_UI_URL: '' };
  });
  after(async () => {
    await t?.env.teardown();
  });

  test("schedule trigger runs the pipeline now, under the schedule's overlap policy, and says what became of it", async () => {
    const scheduleId = `trigger-${Date.now()}`;
    // Paused and hourly, so only the triggers start runs; no worker serves the queue, so a run stays running.
    const queued = { ...env, TEMPORAL_TASK_QUEUE: `nobody-${scheduleId}` };
    const pipelineFlags = ['--table-group', TG.finance, '--test-suite', TS.financeProd];
    const created = await cli(
      ['schedule', 'create', scheduleId, '--every', '1h', '--paused', ...pipelineFlags],
      queued,
    );
    assert.equal(created.code, 0, created.err);
    const started: string[] = [];
    try {
      const first = await cli(['schedule', 'trigger', scheduleId, '--json'], queued);
      assert.equal(first.code, 0, first.err);
      const now = JSON.parse(first.out) as { overlap: string; workflowId: string | null; outcome: string };
      assert.equal(now.overlap, 'skip', "the schedule's own policy, not the SDK's default (allow_all)");
      assert.equal(now.outcome, 'started');
      const counts = async () => {
        const { info } = await t.env.client.schedule.getHandle(scheduleId).describe();
        return { taken: info.numActionsTaken, skipped: info.numActionsSkippedOverlap };
      };
      assert.deepEqual(await counts(), { taken: 1, skipped: 0 }, 'one trigger, one action');
      assert.match(now.workflowId ?? '', new RegExp(`^${scheduleId}-run-`));
      started.push(now.workflowId ?? '');
      const run = await t.env.client.workflow.getHandle(now.workflowId ?? '').describe();
      assert.equal(run.type, 'dataops.dataQualityPipeline');
      assert.equal(run.status.name, 'RUNNING');

      // That run still going, the schedule's policy skips the next one, and the CLI says so.
      const skipped = await cli(['schedule', 'trigger', scheduleId], queued);
      assert.equal(skipped.code, 0, skipped.err);
      assert.equal(skipped.out, `triggered ${scheduleId}: skipped, a run is still going (overlap skip)\n`);
      assert.deepEqual(await counts(), { taken: 1, skipped: 1 });
      // --overlap for this run only: beside the one going. A scheduled run's id ends with the second it was due, so
      // a second trigger within the first one's second would reuse its id.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const beside = await cli(['schedule', 'trigger', scheduleId, '--overlap', 'allow_all'], queued);
      assert.equal(beside.code, 0, beside.err);
      const besideId = new RegExp(`^triggered ${scheduleId}: started (${scheduleId}-run-\\S+)\n$`).exec(
        beside.out,
      )?.[1];
      assert.ok(besideId && besideId !== now.workflowId, beside.out);
      started.push(besideId);
      // Buffered: it would start once the runs going end (the schedule is deleted first, below, so it never does).
      const buffered = await cli(['schedule', 'trigger', scheduleId, '--overlap', 'buffer_one'], queued);
      assert.equal(
        buffered.out,
        `triggered ${scheduleId}: buffered, it starts when the run going ends (overlap buffer_one)\n`,
      );
      assert.equal(
        (await t.env.client.schedule.getHandle(scheduleId).describe()).policies.overlap,
        'SKIP',
        'unchanged',
      );

      // describe reads as the flags were given, with each recent run's status, newest first.
      const described = await cli(['schedule', 'describe', scheduleId], queued);
      assert.equal(described.code, 0, described.err);
      assert.match(described.out, /^spec {8}every 1h \(UTC\)$/m);
      assert.match(described.out, /^overlap {5}skip$/m);
      assert.match(described.out, /^note {8}-$/m, 'created without a note');
      const runs = [...described.out.matchAll(/^recent run {2}(\S+) {2}(\S+) {2}at /gm)].map((m) => [m[1], m[2]]);
      assert.deepEqual(runs, [
        [besideId, 'RUNNING'],
        [now.workflowId, 'RUNNING'],
      ]);
      assert.match(described.out, /^next runs {3}none while paused$/m, 'the server lists times a paused one skips');
    } finally {
      await t.env.client.schedule.getHandle(scheduleId).delete();
      for (const id of started)
        await t.env.client.workflow
          .getHandle(id)
          .terminate('test over')
          .catch(() => undefined);
    }
  });

  test('a cron schedule describes as its cron fields; pause and unpause without --note leave a note of their own', async () => {
    const scheduleId = `cron-${Date.now()}`;
    // The server keeps the expression as a calendar of ranges, months and days by name.
    const cron = '*/15 9-17 1,15 1-6 1-5';
    const pipelineFlags = ['--table-group', TG.finance, '--test-suite', TS.financeProd];
    // A time zone in any case: the server knows it only in its own spelling.
    const zone = ['--timezone', 'europe/berlin'];
    const created = await cli(
      ['schedule', 'create', scheduleId, '--cron', cron, ...zone, '--paused', ...pipelineFlags],
      env,
    );
    assert.equal(created.code, 0, created.err);
    try {
      const described = await cli(['schedule', 'describe', scheduleId], env);
      assert.ok(described.out.split('\n').includes(`spec        cron ${cron} (Europe/Berlin)`), described.out);
      // The server's next times are Berlin's working hours, whatever the offset to UTC that day.
      const { nextRuns } = JSON.parse((await cli(['schedule', 'describe', scheduleId, '--json'], env)).out) as {
        nextRuns: string[];
      };
      const berlin = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: 'numeric', hourCycle: 'h23' });
      for (const at of nextRuns.slice(0, 3)) {
        const hour = Number(berlin.format(new Date(at)));
        assert.ok(hour >= 9 && hour <= 17, `${at} is ${hour} h in Berlin`);
      }
      assert.match(described.out, /^recent run {2}-$/m);
      const listed = (await cli(['schedule', 'list'], env)).out.split('\n').find((l) => l.startsWith(`${scheduleId} `));
      assert.match(listed ?? '', / {2}paused {2}next -$/, 'a paused schedule has no next run');
      for (const [command, note] of [
        ['unpause', 'unpaused with the dataops CLI'],
        ['pause', 'paused with the dataops CLI'],
      ] as const) {
        assert.equal((await cli(['schedule', command, scheduleId], env)).code, 0);
        const json = JSON.parse((await cli(['schedule', 'describe', scheduleId, '--json'], env)).out) as {
          note: string;
        };
        assert.equal(json.note, note, `not the SDK's 'Paused via TypeScript SDK"'`);
      }
    } finally {
      await t.env.client.schedule.getHandle(scheduleId).delete();
    }
  });
});
