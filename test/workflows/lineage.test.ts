/**
 * Lineage and links, end to end on the simulator: the OpenLineage events a pipeline and a single job send (to a file,
 * read back), their run ids and parents, their quality facets, what a cancel and a failure send, and each job's link
 * in the result, the progress and the memo. The transports themselves are in test/lineage/emitter.test.ts; the
 * events' validity against the OpenLineage client in test/lineage/openlineage-client.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowFailedError } from '@temporalio/client';
import { LineageEmitter } from '../../src/lineage/emitter.js';
import type { ActivityDeps } from '../../src/activities/index.js';
import type { DataQualityPipelineResult, RunOrderResult, RunTestSuiteResult } from '../../src/contract/index.js';
import { formatOrder } from '../../src/cli/format.js';
import { progressQuery } from '../../src/contract/index.js';
import { SEED_IDS, SIM_CUSTOMER, type RunningSimulator } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { WAITED_ORDER, startTestSimulator } from '../helpers/sim.js';
import { startTimeSkippingEnv, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';
import { fileLineage, readEvents, TEST_LINKS } from '../helpers/lineage.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const FAST = { pendingMs: 50, claimMs: 20, runMs: 100, cancelMs: 50, interruptMs: 50 };
const base = { pollIntervalMs: 100, maxPollIntervalMs: 200 };
const LINKS = TEST_LINKS;
const settings = { namespace: 'dataops://sim', producerVersion: '1.0.0-test' };

describe('lineage and links', () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  before(async () => {
    t = await startTimeSkippingEnv();
    ({ sim } = await startTestSimulator({ jobDurations: FAST }));
  });
  after(async () => {
    await sim?.close();
    await t?.env.teardown();
  });

  test('a pipeline sends START and COMPLETE for itself and each job, parents, ids and quality facets', async () => {
    const { deps, file, emitter } = fileLineage(await simDeps(sim));
    const { result, workflowRunId, memo, progress } = await withProjectWorker(t.env, deps, async (taskQueue) => {
      const handle = await t.env.client.workflow.start('dataops.dataQualityPipeline', {
        taskQueue,
        workflowId: `lineage-${taskQueue}`,
        args: [{ ...base, tableGroupId: TG.finance, testSuiteId: TS.financeProd, testGeneration: 'skip' }],
      });
      const result = (await handle.result()) as DataQualityPipelineResult;
      const d = await handle.describe();
      return {
        result,
        workflowRunId: handle.firstExecutionRunId,
        memo: d.memo,
        progress: await handle.query(progressQuery),
      };
    });
    await emitter.flush(10_000);
    const events = readEvents(file);
    const pipeline = events.filter((e) => e.run.runId === workflowRunId);
    assert.deepEqual(
      pipeline.map((e) => e.eventType),
      ['START', 'COMPLETE'],
      'the pipeline run: one START, one COMPLETE',
    );
    assert.equal(pipeline[0]!.job.name, `dataQualityPipeline.table_group=${TG.finance}.test_suite=${TS.financeProd}`);
    const profilingId = result.profiling.job.jobId;
    const testRunId = result.testRun.job.jobId;
    for (const [id, role] of [
      [profilingId, 'profiling'],
      [testRunId, 'test_run'],
    ] as const) {
      const runs = events.filter((e) => e.run.runId === id);
      assert.deepEqual(
        runs.map((e) => e.eventType),
        ['START', 'COMPLETE'],
        `${role}: START then COMPLETE, its run id the job's`,
      );
      for (const e of runs) {
        const parent = e.run.facets.parent as { run: { runId: string }; job: { name: string } };
        assert.equal(parent.run.runId, workflowRunId, `${role}: its parent is the pipeline's run`);
        assert.equal(parent.job.name, pipeline[0]!.job.name);
        assert.equal(e.run.facets.dataops_run?.url, LINKS[role].replace('{job_id}', id), `${role}: its page`);
      }
    }
    // What each COMPLETE carries: each table, named by the table group's connection (the simulator's PostgreSQL
    // warehouse), with its profile and its tests; the test counts; the pipeline's score and verdict.
    const WAREHOUSE = 'postgres://warehouse.demo.internal:5432';
    const tables = ['demo.finance.accounts', 'demo.finance.ledger'];
    const named = (e: (typeof events)[number]) => e.inputs.map((i) => `${i.namespace}/${i.name}`).sort();
    const profilingEnd = events.find((e) => e.run.runId === profilingId && e.eventType === 'COMPLETE')!;
    assert.deepEqual(
      named(profilingEnd),
      tables.map((t) => `${WAREHOUSE}/${t}`),
    );
    const ledger = profilingEnd.inputs.find((i) => i.name === 'demo.finance.ledger')!;
    assert.equal(ledger.inputFacets?.dataQualityMetrics?.rowCount, 880_000);
    assert.deepEqual(
      (ledger.facets?.schema?.fields as { name: string }[]).map((f) => f.name),
      ['entry_id', 'account', 'amount', 'posted_at'],
    );
    const testEnd = events.find((e) => e.run.runId === testRunId && e.eventType === 'COMPLETE')!;
    assert.deepEqual(testEnd.run.facets.dataops_quality?.resultCounts, result.testRun.summary.resultCounts);
    const assertions = (e: (typeof events)[number]) =>
      e.inputs.flatMap((i) => (i.inputFacets?.dataQualityAssertions?.assertions as { success: boolean }[]) ?? []);
    assert.equal(
      assertions(testEnd).filter((a) => !a.success).length,
      3,
      'the failed, the error and the dismissed test',
    );
    // The pipeline's own events: no placeholder; its end lists the tables its jobs found, with all they found.
    assert.deepEqual(pipeline[0]!.inputs, [], 'START: nothing known yet');
    assert.deepEqual(named(pipeline[1]!), named(profilingEnd));
    assert.equal(assertions(pipeline[1]!).length, assertions(testEnd).length);
    assert.equal(
      pipeline[1]!.inputs.find((i) => i.name === 'demo.finance.ledger')?.inputFacets?.dataQualityMetrics?.rowCount,
      880_000,
    );
    const end = pipeline[1]!.run.facets.dataops_quality as { scorePercent: number; gates: { passed: boolean } };
    assert.equal(end.scorePercent, result.testRun.summary.scorePercent);
    assert.equal(end.gates.passed, result.gates.passed);
    // The links: in the result, the progress and the memo.
    assert.equal(result.profiling.job.url, LINKS.profiling.replace('{job_id}', profilingId));
    assert.equal(result.testRun.job.url, LINKS.test_run.replace('{job_id}', testRunId));
    assert.deepEqual(
      progress.jobs.map((j) => j.url),
      [result.profiling.job.url, result.testRun.job.url],
    );
    assert.deepEqual((memo as { jobLinks?: Record<string, string> }).jobLinks, {
      [profilingId]: result.profiling.job.url,
      [testRunId]: result.testRun.job.url,
    });
  });

  test("an order's run carries its page: in the result, the memo, the CLI's table and the order's last event", async () => {
    const { deps, file, emitter } = fileLineage(await simDeps(sim));
    const { result, memo } = await withProjectWorker(t.env, deps, async (taskQueue) => {
      const handle = await t.env.client.workflow.start('dataops.runOrder', {
        taskQueue,
        workflowId: `lineage-order-${taskQueue}`,
        args: [WAITED_ORDER],
      });
      const result = (await handle.result()) as RunOrderResult;
      return { result, memo: (await handle.describe()).memo };
    });
    const run = result.orderRun;
    assert.ok(run, 'the order run was waited for');
    const url = `${sim.url}/#/orders/${SIM_CUSTOMER}/production/runs/${run.orderRunId}`;
    assert.equal(run.url, url);
    assert.deepEqual((memo as { jobLinks?: Record<string, string> }).jobLinks, { [run.orderRunId]: url });
    const row = formatOrder(result)
      .split('\n')
      .find((l) => l.startsWith('order run page'));
    assert.equal(row?.split(/\s+/).at(-1), url, String(row));
    await emitter.flush(10_000);
    const complete = readEvents(file).find((e) => e.eventType === 'COMPLETE');
    assert.equal(complete?.run.facets.dataops_run?.orderRunId, run.orderRunId);
    assert.equal(complete?.run.facets.dataops_run?.orderRunUrl, url);
  });

  test('what lineage costs in history: one marker per call, six for a pipeline; nothing at all when it is off', async () => {
    const historyOf = async (deps: ActivityDeps) =>
      withProjectWorker(t.env, deps, async (taskQueue) => {
        const handle = await t.env.client.workflow.start('dataops.dataQualityPipeline', {
          taskQueue,
          workflowId: `lineage-cost-${taskQueue}`,
          args: [{ ...base, tableGroupId: TG.finance, testSuiteId: TS.financeProd, testGeneration: 'skip' }],
        });
        await handle.result();
        return (await handle.fetchHistory()).events ?? [];
      });
    const plain = await simDeps(sim);
    const off = await historyOf(plain);
    const on = await historyOf(fileLineage(plain, {}).deps);
    const markers = (events: typeof on) => events.filter((e) => e.markerRecordedEventAttributes).length;
    // Workflow tasks are left out of the comparison: on a loaded machine either run may have one more (one that timed
    // out, or one a slow local activity heartbeated), three events that lineage does not add.
    const settled = (events: typeof on) =>
      events.filter(
        (e) =>
          !e.workflowTaskScheduledEventAttributes &&
          !e.workflowTaskStartedEventAttributes &&
          !e.workflowTaskCompletedEventAttributes &&
          !e.workflowTaskTimedOutEventAttributes &&
          !e.workflowTaskFailedEventAttributes,
      );
    // The input check's marker only, when off: the pipeline's history is as it was before lineage.
    assert.equal(markers(off), 1);
    // On: the pipeline's start and end, and each job's start and end.
    assert.equal(markers(on) - markers(off), 6);
    assert.equal(settled(on).length - settled(off).length, markers(on) - markers(off), 'nothing but the markers');
  });

  test('an endpoint that holds every event neither fails nor holds up the pipeline', async () => {
    let received = 0;
    const held = createServer((req) => {
      received++;
      req.resume(); // read, never answered
    });
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(held.address() as AddressInfo).port}/api/v1/lineage`;
    const emitter = new LineageEmitter({ transport: { type: 'http', url, timeoutMs: 600_000, retries: 5 } });
    const deps = { ...(await simDeps(sim)), lineage: { emitter, settings, log: () => undefined } };
    try {
      const result = (await withProjectWorker(t.env, deps, (taskQueue) =>
        t.env.client.workflow.execute('dataops.dataQualityPipeline', {
          taskQueue,
          workflowId: `lineage-held-${taskQueue}`,
          args: [{ ...base, tableGroupId: TG.finance, testSuiteId: TS.financeProd, testGeneration: 'skip' }],
        }),
      )) as DataQualityPipelineResult;
      assert.equal(result.status, 'passed');
      // The pipeline ended while the endpoint still held the first of its events: nothing waited for it.
      assert.equal(received, 1);
      await emitter.close();
    } finally {
      held.closeAllConnections();
      held.close();
    }
  });

  test('a cancelled run sends ABORT for itself and its job; a failed job sends FAIL with its message', async () => {
    const slow = await startTestSimulator({ jobDurations: { ...FAST, runMs: 600_000 } });
    try {
      const { deps, file, emitter } = fileLineage(await simDeps(slow.sim));
      const runId = await withProjectWorker(t.env, deps, async (taskQueue) => {
        const handle = await t.env.client.workflow.start('dataops.runTestSuite', {
          taskQueue,
          workflowId: `lineage-cancel-${taskQueue}`,
          args: [{ ...base, testSuiteId: TS.financeProd }],
        });
        await eventually('the job known', async () => (await handle.query(progressQuery)).jobs[0]?.jobId);
        await handle.cancel();
        await assert.rejects(handle.result(), WorkflowFailedError);
        return handle.firstExecutionRunId;
      });
      await emitter.flush(10_000);
      const events = readEvents(file);
      assert.deepEqual(
        events.map((e) => [e.run.runId === runId ? 'workflow' : 'job', e.eventType]),
        [
          ['workflow', 'START'],
          ['job', 'START'],
          ['job', 'ABORT'],
          ['workflow', 'ABORT'],
        ],
      );
    } finally {
      await slow.sim.close();
    }

    const { deps, file, emitter } = fileLineage(await simDeps(sim));
    sim.controls.planJobs({ job_key: 'run-tests', target_id: TS.financeProd, fail_with: 'disk full' });
    await withProjectWorker(t.env, deps, async (taskQueue) => {
      const run = t.env.client.workflow.execute('dataops.runTestSuite', {
        taskQueue,
        workflowId: `lineage-fail-${taskQueue}`,
        args: [{ ...base, testSuiteId: TS.financeProd }],
      }) as Promise<RunTestSuiteResult>;
      await assert.rejects(run, WorkflowFailedError);
    });
    await emitter.flush(10_000);
    const events = readEvents(file);
    const fails = events.filter((e) => e.eventType === 'FAIL');
    assert.equal(fails.length, 2, 'the job and its workflow');
    for (const e of fails) {
      assert.match(String(e.run.facets.errorMessage?.message), /disk full/);
      // The job itself failed: the service's language, not ours; and our facet says so.
      assert.equal(e.run.facets.errorMessage?.programmingLanguage, 'Python');
      assert.deepEqual(e.run.facets.dataops_run?.failure, { kind: 'job', type: 'JobFailed' });
    }
  });

  test("an order's run that did not complete, and failed gates, end FAIL though their workflows complete", async () => {
    const { deps, file, emitter } = fileLineage(await simDeps(sim));
    const { orderRunId, pipelineRunId } = await withProjectWorker(t.env, deps, async (taskQueue) => {
      const order = (await t.env.client.workflow.execute('dataops.runOrder', {
        taskQueue,
        workflowId: `lineage-broken-order-${taskQueue}`,
        args: [{ ...WAITED_ORDER, kitchen: 'staging', variation: 'broken' }],
      })) as RunOrderResult;
      assert.equal(order.orderRun?.status, 'SERVING_ERROR');
      const handle = await t.env.client.workflow.start('dataops.dataQualityPipeline', {
        taskQueue,
        workflowId: `lineage-gates-${taskQueue}`,
        args: [
          {
            ...base,
            tableGroupId: TG.finance,
            testSuiteId: TS.financeProd,
            testGeneration: 'skip',
            gates: { maxFailed: 0 },
            onGateFailure: 'report',
          },
        ],
      });
      const result = (await handle.result()) as DataQualityPipelineResult;
      assert.equal(result.status, 'failed');
      return { orderRunId: order.orderRun.orderRunId, pipelineRunId: handle.firstExecutionRunId };
    });
    await emitter.flush(10_000);
    const events = readEvents(file);
    const orderEnd = events.find((e) => e.run.facets.dataops_run?.orderRunId === orderRunId)!;
    assert.equal(orderEnd.eventType, 'FAIL');
    assert.match(String(orderEnd.run.facets.errorMessage?.message), /ended SERVING_ERROR/);
    assert.equal(orderEnd.run.facets.errorMessage?.programmingLanguage, 'unknown', "a recipe's steps run anything");
    assert.deepEqual(orderEnd.run.facets.dataops_run?.failure, { kind: 'order_run', type: 'OrderFailed' });
    assert.equal(orderEnd.run.facets.dataops_run?.orderRunStatus, 'SERVING_ERROR');
    const gatesEnd = events.filter((e) => e.run.runId === pipelineRunId).at(-1)!;
    assert.equal(gatesEnd.eventType, 'FAIL');
    assert.match(String(gatesEnd.run.facets.errorMessage?.message), /^quality gates failed: /);
    assert.equal(gatesEnd.run.facets.errorMessage?.programmingLanguage, 'TypeScript');
    assert.deepEqual(gatesEnd.run.facets.dataops_run?.failure, { kind: 'quality_gates', type: 'QualityGateFailed' });
    assert.deepEqual((gatesEnd.run.facets.dataops_quality?.gates as { passed: boolean }).passed, false);
  });

  test("each job ends when it ends: generation's COMPLETE comes before the test run's START", async () => {
    const { deps, file, emitter } = fileLineage(await simDeps(sim));
    const result = (await withProjectWorker(t.env, deps, (taskQueue) =>
      t.env.client.workflow.execute('dataops.dataQualityPipeline', {
        taskQueue,
        workflowId: `lineage-generation-${taskQueue}`,
        args: [{ ...base, tableGroupId: TG.finance, testSuiteId: TS.financeProd, testGeneration: 'generate' }],
      }),
    )) as DataQualityPipelineResult;
    await emitter.flush(10_000);
    const events = readEvents(file);
    const at = (jobId: string, type: string) =>
      events.findIndex((e) => e.run.facets.dataops_run?.jobId === jobId && e.eventType === type);
    const generationId = result.generation!.jobId;
    const testRunId = result.testRun.job.jobId;
    assert.ok(at(generationId, 'COMPLETE') >= 0, 'generation completed');
    assert.ok(at(generationId, 'COMPLETE') < at(testRunId, 'START'), 'before the test run started');
  });

  test('a pipeline is one job whatever order runs first; a test run alone lists the tables it tested', async () => {
    const { deps, file, emitter } = fileLineage(await simDeps(sim));
    const pipeline = { ...base, tableGroupId: TG.finance, testSuiteId: TS.financeProd, testGeneration: 'skip' };
    const runs = await withProjectWorker(t.env, deps, async (taskQueue) => {
      const started = [];
      for (const [id, args] of [
        ['plain', pipeline],
        ['ordered', { ...pipeline, order: { kitchen: 'production', recipe: 'load-warehouse', variation: 'daily' } }],
      ] as const) {
        const h = await t.env.client.workflow.start('dataops.dataQualityPipeline', {
          taskQueue,
          workflowId: `lineage-${id}-${taskQueue}`,
          args: [args],
        });
        await h.result();
        started.push(h.firstExecutionRunId);
      }
      const suite = await t.env.client.workflow.start('dataops.runTestSuite', {
        taskQueue,
        workflowId: `lineage-suite-${taskQueue}`,
        args: [{ ...base, testSuiteId: TS.financeProd }],
      });
      await suite.result();
      return [...started, suite.firstExecutionRunId];
    });
    await emitter.flush(10_000);
    const events = readEvents(file);
    const [plain, ordered, suite] = runs.map((id) => events.filter((e) => e.run.runId === id));
    assert.equal(ordered![0]!.job.name, plain![0]!.job.name);
    assert.deepEqual(ordered![0]!.run.facets.dataops_run?.target, {
      tableGroupId: TG.finance,
      testSuiteId: TS.financeProd,
      kitchen: 'production',
      recipe: 'load-warehouse',
      variation: 'daily',
    });
    assert.equal(plain![0]!.job.namespace, 'temporal://sim');
    const suiteEnd = suite!.at(-1)!;
    assert.equal(suiteEnd.eventType, 'COMPLETE');
    assert.deepEqual(suiteEnd.inputs.map((i) => i.name).sort(), ['demo.finance.accounts', 'demo.finance.ledger']);
  });
});
