/**
 * Runs found by what they are about, on the dev server: the search attributes the workflows set as they progress
 * (table group, test suite, stage, verdict), registered by `dataops setup search-attributes`, and `dataops list`
 * filtering by them; and the worker's start-up check of a namespace without them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@temporalio/client';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { listQuery } from '../../src/cli/commands/list.js';
import { startDataops } from '../../src/client/index.js';
import { loadWorkerConfig } from '../../src/config/worker.js';
import { ConfigError } from '../../src/config/env.js';
import { ensureNamespace } from '../../src/setup/nexus.js';
import { missingSearchAttributes } from '../../src/setup/search-attributes.js';
import { createWorker } from '../../src/worker.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { cli } from '../helpers/cli.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startDevServerEnv, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const FAST = { pendingMs: 50, claimMs: 20, runMs: 100, cancelMs: 50, interruptMs: 50 };

interface Listed {
  workflowId: string;
  type: string;
  status: string;
  startTime: string;
  /** null while it runs */
  closeTime: string | null;
  tableGroupId: string | null;
  testSuiteId: string | null;
  stage: string | null;
  verdict: string | null;
}

/** `dataops schedule create` of a paused hourly pipeline of the sales table group and suite. */
const schedule = (scheduleId: string) => [
  ...['schedule', 'create', scheduleId, '--every', '1h', '--paused'],
  ...['--table-group', TG.sales, '--test-suite', TS.salesProd],
];

describe('search attributes and dataops list, on the dev server', () => {
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

  const list = async (...flags: string[]) => {
    const r = await cli(['list', ...flags, '--json'], env);
    assert.equal(r.code, 0, r.err);
    return JSON.parse(r.out) as Listed[];
  };

  test('the setup registers them; pipelines and a promotion are found by table group, suite, stage and verdict', async () => {
    const setup = await cli(['setup', 'search-attributes'], env);
    assert.equal(setup.code, 0, setup.err);
    assert.match(setup.out, /search attribute DataopsTableGroupId \(Keyword\) in default: (registered|exists)/);
    assert.deepEqual(await missingSearchAttributes(t.env.connection, 'default'), []);

    await withProjectWorker(t.env, await simDeps(sim, { searchAttributes: true }), async (taskQueue) => {
      const run = (workflowId: string, minScorePercent: number) =>
        t.env.client.workflow.execute('dataops.dataQualityPipeline', {
          taskQueue,
          workflowId,
          args: [
            {
              tableGroupId: TG.finance,
              testSuiteId: TS.financeProd,
              testGeneration: 'skip',
              onGateFailure: 'report',
              gates: { minScorePercent },
              pollIntervalMs: 100,
            },
          ],
        });
      await run(`passing-${taskQueue}`, 0);
      // The scale issue's bound holds with the search attributes set: 3 upserts (what it is about with its first
      // stage, the test-run stage, the verdict), within 50 events in all.
      const history = await t.env.client.workflow.getHandle(`passing-${taskQueue}`).fetchHistory();
      const upserts = history.events?.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes).length;
      assert.equal(upserts, 3, 'ours only: no patch marker adds a TemporalChangeVersion upsert');
      assert.ok((history.events?.length ?? 0) <= 50, `${history.events?.length} events`);
      await run(`failing-${taskQueue}`, 100);
      const promotion = await t.env.client.workflow.start('dataops.promoteTestDefinitions', {
        taskQueue,
        workflowId: `promotion-${taskQueue}`,
        args: [{ source: { testSuiteId: TS.salesDev }, targetTestSuiteId: TS.salesProd, preset: 'promotion' }],
      });

      const byGroup = await eventually('both pipelines listed', async () => {
        const found = await list('--table-group', TG.finance);
        return found.filter((w) => w.workflowId.endsWith(taskQueue)).length === 2 && found;
      });
      const passing = byGroup.find((w) => w.workflowId === `passing-${taskQueue}`);
      assert.deepEqual(
        { ...passing, workflowId: undefined },
        {
          workflowId: undefined,
          type: 'dataops.dataQualityPipeline',
          status: 'COMPLETED',
          startTime: passing?.startTime,
          closeTime: passing?.closeTime,
          tableGroupId: TG.finance,
          testSuiteId: TS.financeProd,
          stage: 'test_run',
          verdict: 'passed',
        },
      );
      // A closed run says when it closed: it completed after it started.
      assert.ok(Date.parse(passing!.closeTime!) > Date.parse(passing!.startTime), JSON.stringify(passing));
      const failed = await list('--table-group', TG.finance, '--verdict', 'failed');
      assert.deepEqual(
        failed.filter((w) => w.workflowId.endsWith(taskQueue)).map((w) => w.workflowId),
        [`failing-${taskQueue}`],
      );

      const waiting = await eventually('the promotion awaiting approval', async () =>
        (await list('--stage', 'awaiting_approval', '--test-suite', TS.salesProd)).find(
          (w) => w.workflowId === promotion.workflowId,
        ),
      );
      assert.equal(waiting.type, 'dataops.promoteTestDefinitions');
      assert.equal(waiting.closeTime, null, 'still running');
      const running = await cli(['list', '--stage', 'awaiting_approval', '--test-suite', TS.salesProd], env);
      assert.match(running.out, new RegExp(`status\\s+RUNNING since ${waiting.startTime}`));
      assert.match(running.out, /^stage\s+awaiting_approval$/m);
      await promotion.cancel();

      const shown = await cli(['list', '--table-group', TG.finance, '--verdict', 'passed'], env);
      assert.match(shown.out, new RegExp(`dataQualityPipeline passing-${taskQueue}`));
      assert.match(shown.out, /verdict\s+passed/);
      assert.match(shown.out, /^last stage\s+test_run$/m, 'where a closed run ended, not where it is');
      assert.match(
        shown.out,
        new RegExp(`status\\s+COMPLETED at ${passing!.closeTime}, started ${passing!.startTime}`),
      );
    });
  });

  test('a run started with its first search attributes is found by them before a worker takes it, and does not set them again', async () => {
    // The CLI's start sets them unless DATAOPS_SEARCH_ATTRIBUTES is off; no worker polls this queue.
    const idle = `no-worker-${Date.now()}`;
    const start = async (extra: Record<string, string>) => {
      const r = await cli(['profile', '--table-group', TG.other, '--task-queue', idle, '--no-wait', '--json'], {
        ...env,
        ...extra,
      });
      assert.equal(r.code, 0, r.err);
      return (JSON.parse(r.out) as { workflowId: string }).workflowId;
    };
    const withThem = await start({});
    const without = await start({ DATAOPS_SEARCH_ATTRIBUTES: 'off' });
    try {
      const found = await eventually('the unworked run listed by its table group', async () =>
        (await list('--table-group', TG.other, '--stage', 'profiling', '--status', 'Running')).find(
          (w) => w.workflowId === withThem,
        ),
      );
      assert.equal(found.type, 'dataops.profileTableGroup');
      const bare = await t.env.client.workflow.getHandle(without).describe();
      assert.deepEqual(bare.typedSearchAttributes.getAll(), [], 'off: the start sets none');
    } finally {
      await t.env.client.workflow.getHandle(withThem).terminate('test over');
      await t.env.client.workflow.getHandle(without).terminate('test over');
    }

    // Started through the package's starter with them, a pipeline upserts only what changes: the test-run stage and
    // the verdict (3 upserts without them in the start, the test above).
    await withProjectWorker(t.env, await simDeps(sim, { searchAttributes: true }), async (taskQueue) => {
      const handle = await startDataops(
        t.env.client,
        'dataQualityPipeline',
        { tableGroupId: TG.finance, testSuiteId: TS.financeProd, testGeneration: 'skip', pollIntervalMs: 100 },
        { taskQueue, workflowId: `at-start-${taskQueue}`, withSearchAttributes: true },
      );
      assert.equal((await handle.result()).status, 'passed');
      const events = (await handle.fetchHistory()).events ?? [];
      const upserted = events.flatMap((e) =>
        Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}),
      );
      assert.deepEqual(upserted, ['DataopsStage', 'DataopsVerdict']);
      const attributes = (await handle.describe()).typedSearchAttributes;
      const ours = attributes.getAll().filter((p) => p.key.name.startsWith('Dataops'));
      assert.deepEqual(Object.fromEntries(ours.map((p) => [p.key.name, p.value])), {
        DataopsTableGroupId: TG.finance,
        DataopsTestSuiteId: TS.financeProd,
        DataopsStage: 'test_run',
        DataopsVerdict: 'passed',
      });
    });
  });

  test('a schedule starts its runs with their first search attributes', async () => {
    const scheduleId = `at-start-${Date.now()}`;
    const created = await cli(schedule(scheduleId), env);
    assert.equal(created.code, 0, created.err);
    try {
      const action = (await t.env.client.schedule.getHandle(scheduleId).describe()).action;
      assert.equal(action.type, 'startWorkflow');
      const pairs = action.typedSearchAttributes;
      assert.deepEqual(
        Object.fromEntries(
          (Array.isArray(pairs) ? pairs : (pairs?.getAll() ?? [])).map((p) => [p.key.name, p.value] as const),
        ),
        { DataopsTableGroupId: TG.sales, DataopsTestSuiteId: TS.salesProd, DataopsStage: 'profiling' },
      );
    } finally {
      await t.env.client.schedule.getHandle(scheduleId).delete();
    }
  });

  test('a filter that is not an id, or a stage that does not exist, is a usage error', async () => {
    const injected = await cli(['list', '--table-group', 'x" OR WorkflowId != "'], env);
    assert.equal(injected.code, 2, injected.err);
    assert.match(injected.err, /--table-group.*expected an id/);
    const stage = await cli(['list', '--stage', 'baking'], env);
    assert.equal(stage.code, 2);
    assert.match(stage.err, /--stage.*Allowed choices are order, profiling/);
    assert.equal(
      listQuery({ testSuite: 'ts-1', stage: 'test_run', status: 'Running', type: 'dataops.runTestSuite' }),
      'WorkflowType IN ("dataops.runTestSuite") AND DataopsTestSuiteId = "ts-1" AND DataopsStage = "test_run" AND ExecutionStatus = "Running"',
    );
  });

  test('a worker refuses to start on a namespace without them (require), or registers them (register)', async () => {
    const namespace = `no-attributes-${Date.now()}`;
    await ensureNamespace(t.env.connection, namespace);
    const config = (mode: string) =>
      loadWorkerConfig({
        TEMPORAL_ADDRESS: t.env.connection.options.address,
        TEMPORAL_NAMESPACE: namespace,
        DATAOPS_USERNAME: 'u',
        DATAOPS_PASSWORD: 'p',
        DATAOPS_SEARCH_ATTRIBUTES: mode,
      });
    // A new namespace reaches the server's namespace cache after a few seconds.
    const refused = await eventually(
      'the namespace known to the operator service',
      async () => {
        const err = await createWorker(config('require'), t.env.nativeConnection).catch((e: unknown) => e);
        return err instanceof ConfigError && !/is not found/.test(err.message) && err;
      },
      { tries: 120, delayMs: 250 },
    );
    assert.match(refused.message, new RegExp(`namespace ${namespace} lacks DataopsTableGroupId, DataopsTestSuiteId`));
    assert.match(refused.message, /temporal operator search-attribute create --namespace \S+ --name DataopsStage/);
    assert.match(refused.message, /DATAOPS_SEARCH_ATTRIBUTES=off/);

    // There a start that would set them is refused, having started nothing: the CLI starts the run without them,
    // and says so; and a schedule the same.
    const there = { ...env, TEMPORAL_NAMESPACE: namespace };
    const started = await cli(['profile', '--table-group', TG.sales, '--no-wait', '--json'], there);
    assert.equal(started.code, 0, started.err);
    assert.match(started.err, new RegExp(`warning: namespace ${namespace} refused the run's search attributes`));
    assert.match(started.err, /going on without them.*DATAOPS_SEARCH_ATTRIBUTES=off/s);
    const { workflowId } = JSON.parse(started.out) as { workflowId: string };
    const elsewhere = new Client({ connection: t.env.connection, namespace });
    const run = elsewhere.workflow.getHandle(workflowId);
    assert.equal((await run.describe()).status.name, 'RUNNING');
    await run.terminate('test over');
    // The package's starter the same, without a word: the run sets them itself as it goes.
    const typed = await startDataops(
      elsewhere,
      'profileTableGroup',
      { tableGroupId: TG.sales },
      { workflowId: `typed-${namespace}`, taskQueue: 'no-worker', withSearchAttributes: true },
    );
    const described = await typed.describe();
    assert.equal(described.status.name, 'RUNNING');
    assert.deepEqual(
      described.typedSearchAttributes.getAll().filter((p) => p.key.name.startsWith('Dataops')),
      [],
    );
    await typed.terminate('test over');
    const bareSchedule = `bare-${Date.now()}`;
    const scheduled = await cli(schedule(bareSchedule), there);
    assert.equal(scheduled.code, 0, scheduled.err);
    assert.match(scheduled.err, /warning: .*refused the run's search attributes.*going on without them/);
    const action = (await elsewhere.schedule.getHandle(bareSchedule).describe()).action;
    const set = action.typedSearchAttributes;
    assert.equal((Array.isArray(set) ? set : (set?.getAll() ?? [])).length, 0, 'created without them');

    const { worker, deps } = await createWorker(config('register'), t.env.nativeConnection);
    const running = worker.run();
    worker.shutdown();
    await running;
    await deps.close();
    assert.deepEqual(await missingSearchAttributes(t.env.connection, namespace), []);
  });
});
