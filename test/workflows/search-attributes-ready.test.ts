/**
 * A team's own worker (README, "In your own worker": `buildActivityDeps` and the SDK's `Worker.create`, not our
 * `createWorker`) on a namespace where nothing was registered: with every default, the first workflow's input check
 * registers the search attributes and the run goes on; with DATAOPS_SEARCH_ATTRIBUTES=require, or with one of ours
 * registered with another type, it fails at once, naming what is wrong and the fix, instead of failing every workflow
 * task for ever.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApplicationFailure, Client, WorkflowFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import proto from '@temporalio/proto';
import { createActivities } from '../../src/activities/index.js';
import { SEARCH_ATTRIBUTES } from '../../src/contract/search-attributes.js';
import { ensureNamespace } from '../../src/setup/nexus.js';
import { missingSearchAttributes } from '../../src/setup/search-attributes.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { buildActivityDeps, loadWorkerConfig, waitsQueueActivities } from '../../src/worker.js';
import { workflowsPath } from '../helpers/activities.js';
import { simulatorService } from '../helpers/processes.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startDevServerEnv, uniqueTaskQueue, workflowBundle, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const NAMES = Object.values(SEARCH_ATTRIBUTES).map((a) => a.name);
const { temporal } = proto;

describe("a team's worker on a namespace without our search attributes", () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  before(async () => {
    t = await startDevServerEnv(); // nothing registered
    ({ sim } = await startTestSimulator({
      jobDurations: { pendingMs: 50, claimMs: 20, runMs: 100, cancelMs: 50, interruptMs: 50 },
    }));
  });
  after(async () => {
    await sim?.close();
    await t?.env.teardown();
  });

  /** Runs a test run on a fresh namespace, on the recipe's two workers, with the worker settings `env`. */
  async function testRunOn(env: Record<string, string>, prepare?: (namespace: string) => Promise<unknown>) {
    const namespace = uniqueTaskQueue('plain');
    await ensureNamespace(t.env.connection, namespace);
    // A new namespace reaches every part of the server a moment after it is registered.
    const missingBefore = await eventually('the new namespace', () =>
      missingSearchAttributes(t.env.connection, namespace).catch(() => undefined),
    );
    const taskQueue = uniqueTaskQueue('team');
    const address = t.env.connection.options.address;
    await prepare?.(namespace);
    const config = loadWorkerConfig({
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      ...simulatorService(sim.url),
      ...env,
    });
    const deps = await buildActivityDeps(config);
    const activities = createActivities(deps);
    const common = { connection: t.env.nativeConnection, namespace };
    const main = await Worker.create({
      ...common,
      taskQueue,
      workflowBundle: await workflowBundle(workflowsPath),
      activities,
    });
    const waits = await Worker.create({
      ...common,
      taskQueue: config.waitsTaskQueue,
      activities: waitsQueueActivities(activities),
    });
    const client = new Client({ connection: t.env.connection, namespace });
    try {
      const handle = await client.workflow.start('dataops.runTestSuite', {
        taskQueue,
        workflowId: uniqueTaskQueue('suite'),
        args: [{ testSuiteId: SEED_IDS.testSuites.financeProd, pollIntervalMs: 100, maxPollIntervalMs: 200 }],
      });
      const outcome = await waits.runUntil(main.runUntil(handle.result().catch((err: unknown) => err)));
      return { namespace, handle, outcome, missingBefore };
    } finally {
      await deps.close();
    }
  }

  // Bounded: without the check, every workflow task fails and the run never ends.
  const BOUNDED = { timeout: 120_000 };

  test('with every default, the first input check registers them, and the run sets them', BOUNDED, async () => {
    const { namespace, handle, outcome, missingBefore } = await testRunOn({});
    assert.deepEqual(missingBefore.sort(), [...NAMES].sort(), 'nothing registered before');
    assert.ok(!(outcome instanceof Error), String(outcome));
    assert.deepEqual(await missingSearchAttributes(t.env.connection, namespace), []);
    const set = (await handle.describe()).searchAttributes as Record<string, unknown[]>;
    assert.deepEqual(set[SEARCH_ATTRIBUTES.testSuiteId.name], [SEED_IDS.testSuites.financeProd]);
  });

  test('with require, the workflow fails at once, naming what is missing and the fix', BOUNDED, async () => {
    const { namespace, outcome } = await testRunOn({ DATAOPS_SEARCH_ATTRIBUTES: 'require' });
    assert.ok(outcome instanceof WorkflowFailedError, String(outcome));
    assert.ok(outcome.cause instanceof ApplicationFailure, String(outcome.cause));
    assert.equal(outcome.cause.type, 'SearchAttributesMissing');
    assert.equal(outcome.cause.nonRetryable, true);
    assert.match(outcome.cause.message, new RegExp(`namespace ${namespace} lacks ${NAMES.join(', ')}`));
    assert.match(outcome.cause.message, /dataops setup search-attributes/);
    assert.match(outcome.cause.message, /DATAOPS_SEARCH_ATTRIBUTES=off/);
    assert.deepEqual((await missingSearchAttributes(t.env.connection, namespace)).sort(), [...NAMES].sort());
  });

  test(
    'one of ours registered with another type fails the workflow at once: no registration mends it',
    BOUNDED,
    async () => {
      const stage = SEARCH_ATTRIBUTES.stage.name;
      const { outcome } = await testRunOn({}, (namespace) =>
        t.env.connection.operatorService.addSearchAttributes({
          namespace,
          searchAttributes: { [stage]: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_TEXT },
        }),
      );
      assert.ok(outcome instanceof WorkflowFailedError, String(outcome));
      assert.ok(outcome.cause instanceof ApplicationFailure, String(outcome.cause));
      assert.equal(outcome.cause.type, 'SearchAttributesMissing');
      assert.match(
        outcome.cause.message,
        new RegExp(`${stage} are registered in namespace .* with a type other than Keyword`),
      );
      assert.match(outcome.cause.message, /DATAOPS_SEARCH_ATTRIBUTES=off/);
    },
  );
});
