/**
 * The `dataops` Nexus service on the dev server: a workflow in a second namespace runs the pipeline through an
 * endpoint the project's setup creates; a bad input is refused before any workflow starts; cancelling the caller
 * cancels the run and its remote job. The handler starts each run with its first search attributes.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { NexusOperationFailure } from '@temporalio/common';
import { createActivities } from '../../src/activities/index.js';
import type { DataQualityPipelineResult } from '../../src/contract/index.js';
import { dataopsNexusHandler } from '../../src/nexus/handler.js';
import { ensureNamespace, ensureNexusEndpoint } from '../../src/setup/nexus.js';
import { ensureSearchAttributes } from '../../src/setup/search-attributes.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { simDeps, workflowsPath } from '../helpers/activities.js';
import { cli } from '../helpers/cli.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startDevServerEnv, uniqueTaskQueue, withWorker, workflowBundle, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const FAST = { pendingMs: 50, claimMs: 20, runMs: 100, cancelMs: 50, interruptMs: 50 };
const CALLERS = 'dataops-callers';
const callerWorkflows = fileURLToPath(new URL('../fixtures/workflows/nexus-caller.js', import.meta.url));

describe('the dataops Nexus service, called from another namespace', () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  let callers: Client;
  before(async () => {
    t = await startDevServerEnv();
    ({ sim } = await startTestSimulator({ jobDurations: FAST }));
    assert.equal(await ensureNamespace(t.env.connection, CALLERS), true);
    assert.equal(await ensureNamespace(t.env.connection, CALLERS), false, 'idempotent');
    callers = new Client({ connection: t.env.connection, namespace: CALLERS });
  });
  after(async () => {
    await sim?.close();
    await t?.env.teardown();
  });

  /** Our worker (handler) on `default`, a caller worker on the callers' namespace, and an endpoint between them. */
  async function withBoth<T>(fn: (callerQueue: string, endpoint: string) => Promise<T>): Promise<T> {
    const handlerQueue = uniqueTaskQueue('nexus-handler');
    const endpoint = `dataops-${handlerQueue}`;
    const spec = { name: endpoint, targetNamespace: 'default', targetTaskQueue: handlerQueue };
    // The project's setup, as an operator runs it.
    const env = { TEMPORAL_ADDRESS: t.env.connection.options.address, TEMPORAL_TASK_QUEUE: handlerQueue };
    const setup = await cli(['setup', 'nexus', '--endpoint', endpoint, '--caller-namespace', CALLERS], env);
    assert.equal(setup.code, 0, setup.err);
    assert.match(setup.out, new RegExp(`endpoint ${endpoint} → default/${handlerQueue}: created`));
    assert.match((await cli(['setup', 'nexus', '--endpoint', endpoint], env)).out, /: exists$/m, 'idempotent');
    assert.equal(await ensureNexusEndpoint(t.env.connection, spec), false);
    await assert.rejects(
      ensureNexusEndpoint(t.env.connection, { ...spec, targetTaskQueue: 'elsewhere' }),
      /exists and routes to default\/nexus-handler-.*, not default\/elsewhere/,
    );
    // As the worker does with its search attributes registered: its handler starts each run with its first ones.
    await ensureSearchAttributes(t.env.connection, 'default');
    const deps = await simDeps(sim, { searchAttributes: true });
    return withWorker(
      t.env,
      {
        workflowsPath,
        activities: createActivities(deps),
        nexusServices: [dataopsNexusHandler({ searchAttributes: true })],
      },
      async () => {
        const callerQueue = uniqueTaskQueue('nexus-caller');
        const caller = await Worker.create({
          connection: t.env.nativeConnection,
          namespace: CALLERS,
          taskQueue: callerQueue,
          workflowBundle: await workflowBundle(callerWorkflows),
        });
        return caller.runUntil(fn(callerQueue, endpoint));
      },
      handlerQueue,
    );
  }

  test('the pipeline runs through Nexus; the run is a workflow of ours, named by the request', async () => {
    await withBoth(async (taskQueue, endpoint) => {
      const result = (await callers.workflow.execute('pipelineThroughNexus', {
        taskQueue,
        workflowId: `caller-${taskQueue}`,
        args: [
          endpoint,
          { tableGroupId: TG.finance, testSuiteId: TS.financeProd, testGeneration: 'skip', pollIntervalMs: 100 },
        ],
      })) as DataQualityPipelineResult;
      assert.equal(result.status, 'passed');
      assert.equal(result.testRun.job.wait.job.status, 'completed');
      assert.ok(result.testRun.summary.scorePercent !== null);
      const runs = [];
      for await (const w of t.env.client.workflow.list({ query: `WorkflowType = 'dataops.dataQualityPipeline'` }))
        if (w.workflowId.startsWith('dataops-nexus/dataQualityPipeline/')) runs.push(w);
      assert.equal(runs.length, 1, 'one run in our namespace for the operation');
      // Started with its first search attributes, it upserts only the test-run stage and the verdict.
      const run = t.env.client.workflow.getHandle(runs[0]!.workflowId);
      const upserted = ((await run.fetchHistory()).events ?? []).flatMap((e) =>
        Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}),
      );
      assert.deepEqual(upserted, ['DataopsStage', 'DataopsVerdict']);
      const attributes = (await run.describe()).typedSearchAttributes.getAll();
      assert.deepEqual(
        Object.fromEntries(
          attributes.filter((a) => a.key.name.startsWith('Dataops')).map((a) => [a.key.name, a.value]),
        ),
        {
          DataopsTableGroupId: TG.finance,
          DataopsTestSuiteId: TS.financeProd,
          DataopsStage: 'test_run',
          DataopsVerdict: 'passed',
        },
      );
    });
  });

  test('a bad input is refused as BAD_REQUEST naming every problem, and no workflow starts', async () => {
    await withBoth(async (taskQueue, endpoint) => {
      const err = await callers.workflow
        .execute('testRunThroughNexus', {
          taskQueue,
          workflowId: `caller-bad-${taskQueue}`,
          args: [endpoint, { pollIntervalMs: 5, surprise: 1 }],
        })
        .catch((e: unknown) => e);
      assert.ok(err instanceof WorkflowFailedError, String(err));
      assert.ok(err.cause instanceof NexusOperationFailure, String(err.cause));
      const message = `${err.cause.cause?.message ?? ''}`;
      assert.match(message, /invalid input of runTestSuite: /);
      for (const path of ['testSuiteId', 'pollIntervalMs', '(input)'])
        assert.ok(message.includes(`${path}: `), message);
      for await (const w of t.env.client.workflow.list({ query: `WorkflowType = 'dataops.runTestSuite'` }))
        assert.ok(!w.workflowId.startsWith('dataops-nexus/'), `no run was started: ${w.workflowId}`);
    });
  });

  test('cancelling the caller cancels the operation, our run, and the remote job', async () => {
    sim.controls.setJobDurations({ runMs: 600_000 });
    try {
      await withBoth(async (taskQueue, endpoint) => {
        const handle = await callers.workflow.start('testRunThroughNexus', {
          taskQueue,
          workflowId: `caller-cancel-${taskQueue}`,
          args: [endpoint, { testSuiteId: TS.salesProd, pollIntervalMs: 100 }],
        });
        const job = await eventually('the remote test run to be running', () =>
          sim.controls.jobs().find((j) => j.test_suite_id === TS.salesProd && j.status === 'running'),
        );
        await handle.cancel();
        await handle.result().catch(() => undefined);
        await eventually('the remote job canceled', () => sim.controls.job(job.id)?.status === 'canceled');
      });
    } finally {
      sim.controls.setJobDurations({ runMs: FAST.runMs });
    }
  });
});
