/** The pipeline's order, gates and verdicts. Test generation and durability have their own files beside it. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import type { DataQualityPipelineInput, DataQualityPipelineResult } from '../../src/contract/index.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startTimeSkippingEnv, type TestEnv } from '../helpers/temporal.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const FAST = { pendingMs: 50, claimMs: 20, runMs: 100, cancelMs: 50, interruptMs: 50 };
const base = { pollIntervalMs: 100, maxPollIntervalMs: 200 };

describe('dataops.dataQualityPipeline', () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  before(async () => {
    t = await startTimeSkippingEnv();
    ({ sim } = await startTestSimulator({ jobDurations: FAST, orderDurations: { plannedMs: 20, runMs: 50 } }));
  });
  after(async () => {
    await sim?.close();
    await t?.env.teardown();
  });

  const run = async (input: DataQualityPipelineInput) =>
    withProjectWorker(t.env, await simDeps(sim), (taskQueue) =>
      t.env.client.workflow.execute('dataops.dataQualityPipeline', {
        taskQueue,
        workflowId: `dq-${taskQueue}`,
        args: [input],
      }),
    ) as Promise<DataQualityPipelineResult>;

  test('passes its gates: order, profiling, generation, test run, summary, in order', async () => {
    const result = await run({
      ...base,
      order: {
        kitchen: 'production',
        recipe: 'load-warehouse',
        variation: 'daily',
        overrides: {
          sourceDataDate: { source_data_date: '2026-11-20' },
          alertDestination: { alert_email: 'dq@example.com' },
        },
      },
      tableGroupId: TG.sales,
      testSuiteId: TS.salesProd,
      gates: { minScorePercent: 90, maxFailed: 0, maxErrors: 0 },
    });
    assert.equal(result.status, 'passed');
    assert.equal(result.order?.orderRun?.status, 'COMPLETED_SERVING');
    assert.deepEqual(result.order?.overridesApplied.source_data_date, { source_data_date: '2026-11-20' });
    assert.deepEqual(result.order?.variableOverrides, {
      source_data_date: '2026-11-20',
      alert_email: 'dq@example.com',
    });
    assert.equal(result.profiling.summary.scorePercent, 63.9);
    assert.equal(result.generation?.wait.job.job_key, 'run-test-generation');
    assert.equal(result.generation?.wait.job.status, 'completed');
    // generation added Unique(customers.id): 9 definitions, 8 passed and 1 warning
    assert.deepEqual(result.testRun.summary.resultCounts, {
      passed: 8,
      failed: 0,
      warning: 1,
      error: 0,
      log: 0,
      dismissed: 0,
    });
    assert.deepEqual(result.gates, {
      passed: true,
      violations: [],
      evaluated: { scorePercent: 94.4, failed: 0, errors: 0, warnings: 1 },
      limits: { minScorePercent: 90, maxFailed: 0, maxErrors: 0, warningsAsFailures: false },
    });
    const order = sim.controls.jobs().map((j) => j.job_key);
    assert.deepEqual(
      order.slice(-3),
      ['run-profile', 'run-test-generation', 'run-tests'],
      'the test run waits for generation',
    );
  });

  test('failing gates fail the workflow with QualityGateFailed carrying the result', async () => {
    const err = await run({
      ...base,
      tableGroupId: TG.finance,
      testSuiteId: TS.financeProd,
      gates: { minScorePercent: 50, maxFailed: 0, maxErrors: 0 },
    }).catch((e: unknown) => e);
    assert.ok(err instanceof WorkflowFailedError);
    assert.ok(err.cause instanceof ApplicationFailure);
    assert.equal(err.cause.type, 'QualityGateFailed');
    assert.equal(err.cause.nonRetryable, true);
    assert.match(
      err.cause.message,
      /score 33\.3% is below the minimum 50%; 1 failed test\(s\) exceed the maximum 0; 1 test\(s\) in error exceed the maximum 0/,
    );
    const details = err.cause.details?.[0] as DataQualityPipelineResult;
    assert.equal(details.status, 'failed');
    assert.deepEqual(details.testRun.summary.resultCounts, {
      passed: 1,
      failed: 1,
      warning: 0,
      error: 1,
      log: 0,
      dismissed: 1,
    });
  });

  test('failing gates in report mode return a result marked failed', async () => {
    const result = await run({
      ...base,
      tableGroupId: TG.finance,
      testSuiteId: TS.financeProd,
      gates: { maxFailed: 1, maxErrors: 0 },
      onGateFailure: 'report',
    });
    assert.equal(result.status, 'failed');
    assert.deepEqual(result.gates.violations, ['1 test(s) in error exceed the maximum 0']);
    assert.equal(result.generation, null, 'finance does not auto-generate');
  });

  test('a failed order fails the pipeline before anything is profiled; continueOnFailure goes on', async () => {
    const broken = { kitchen: 'staging', recipe: 'load-warehouse', variation: 'broken' };
    const before = sim.controls.jobs().length;
    const err = await run({ ...base, order: broken, tableGroupId: TG.finance, testSuiteId: TS.financeProd }).catch(
      (e: unknown) => e,
    );
    assert.ok(err instanceof WorkflowFailedError);
    assert.ok(err.cause instanceof ApplicationFailure);
    assert.equal(err.cause.type, 'OrderFailed');
    assert.match(
      err.cause.message,
      /ended SERVING_ERROR, so its data cannot be trusted; nothing was profiled or tested/,
    );
    assert.equal(sim.controls.jobs().length, before, 'no job was submitted on stale data');

    const onward = await run({
      ...base,
      order: { ...broken, continueOnFailure: true },
      tableGroupId: TG.finance,
      testSuiteId: TS.financeProd,
      onGateFailure: 'report',
    });
    assert.equal(onward.order?.orderRun?.status, 'SERVING_ERROR');
    assert.equal(onward.testRun.job.wait.job.status, 'completed', 'profiled and tested as asked');
  });

  test('warnings can count as failures', async () => {
    const gates = { maxFailed: 0, warningsAsFailures: true };
    const result = await run({
      ...base,
      tableGroupId: TG.sales,
      testSuiteId: TS.salesProd,
      gates,
      onGateFailure: 'report',
    });
    assert.equal(result.status, 'failed');
    assert.deepEqual(result.gates.violations, ['1 failed test(s) (warnings counted: 1) exceed the maximum 0']);
    const lenient = await run({
      ...base,
      tableGroupId: TG.sales,
      testSuiteId: TS.salesProd,
      gates: { maxFailed: 0 },
      testGeneration: 'skip',
    });
    assert.equal(lenient.status, 'passed');
  });
});
