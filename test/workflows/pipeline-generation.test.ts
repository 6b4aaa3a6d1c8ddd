/**
 * The pipeline's test-generation step: starting generation itself, a table group that generates none, and TestGen's
 * own follow-up job (found without a target, after a group's first completed profiling run only).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { DataQualityPipelineInput, DataQualityPipelineResult } from '../../src/contract/index.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { SimHttp, startTestSimulator } from '../helpers/sim.js';
import { startTimeSkippingEnv, type TestEnv } from '../helpers/temporal.js';
import { scheduledActivities } from '../helpers/fresh-run.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const FAST = { pendingMs: 50, claimMs: 20, runMs: 100, cancelMs: 50, interruptMs: 50 };
const base = { pollIntervalMs: 100, maxPollIntervalMs: 200 };

describe('dataQualityPipeline: test generation', () => {
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

  const run = async (input: DataQualityPipelineInput) =>
    withProjectWorker(t.env, await simDeps(sim), (taskQueue) =>
      t.env.client.workflow.execute('dataops.dataQualityPipeline', {
        taskQueue,
        workflowId: `dq-${taskQueue}`,
        args: [input],
      }),
    ) as Promise<DataQualityPipelineResult>;

  test('testGeneration generate starts generation for the suite itself, exactly once, and waits for it', async () => {
    const before = sim.controls.jobs().length;
    const result = await run({
      ...base,
      tableGroupId: TG.finance,
      testSuiteId: TS.financeProd,
      testGeneration: 'generate',
      onGateFailure: 'report',
    });
    const created = sim.controls.jobs().slice(before);
    assert.deepEqual(
      created.map((j) => [j.job_key, j.source, j.test_suite_id]),
      [
        ['run-profile', 'api', null],
        ['run-test-generation', 'api', TS.financeProd],
        ['run-tests', 'api', TS.financeProd],
      ],
      'profile, then our own generation job for the suite, then the test run: one of each',
    );
    assert.equal(result.generation?.jobId, created[1]?.id);
    assert.equal(result.generation?.wait.job.status, 'completed');
  });

  test('a table group that generates no tests: auto does not spend its grace looking, wait fails at once saying why', async () => {
    const input = { ...base, tableGroupId: TG.finance, testSuiteId: TS.financeProd };
    const history = await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const handle = await t.env.client.workflow.start('dataops.dataQualityPipeline', {
        taskQueue,
        workflowId: `no-gen-${taskQueue}`,
        args: [{ ...input, testGeneration: 'auto' }],
      });
      const result = (await handle.result()) as DataQualityPipelineResult;
      assert.equal(result.generation, null);
      return handle.fetchHistory();
    });
    const activities = scheduledActivities(history.events ?? []);
    assert.deepEqual(activities, ['waitForJob', 'waitForJob'], 'the profiling wait read the outlook and the summary');
    assert.ok(
      !activities.includes('findGenerationJob'),
      `no look for a job that cannot come: ${activities.join(', ')}`,
    );
    const err = await run({ ...input, testGeneration: 'wait' }).catch((e: unknown) => e);
    assert.ok(err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure, String(err));
    assert.equal(err.cause.type, 'GenerationJobNotFound');
    assert.match(err.cause.message, /no default test suite/);
  });

  test("TestGen's follow-up generation: found without a target, after the first completed run only", async () => {
    const { sim: bare } = await startTestSimulator({ jobDurations: FAST }); // TestGen 5.134's behaviour, by default
    try {
      // A profiling run cancelled before the pipeline: TestGen does not count it, so generation still follows.
      const http = new SimHttp(bare);
      const early = await http.as('admin', 'POST', `/api/v1/table-groups/${TG.sales}/profiling-runs`);
      await http.as('admin', 'POST', `/api/v1/jobs/${early.body.id}/cancel`);
      const deps = await simDeps(bare);
      const histories: HistoryEvent[][] = [];
      const pipeline = (testGeneration: 'wait' | 'auto') =>
        withProjectWorker(t.env, deps, async (taskQueue) => {
          const handle = await t.env.client.workflow.start('dataops.dataQualityPipeline', {
            taskQueue,
            workflowId: `bare-${testGeneration}-${taskQueue}`,
            args: [{ ...base, tableGroupId: TG.sales, testSuiteId: TS.salesProd, testGeneration }],
          });
          try {
            return await handle.result();
          } finally {
            histories.push((await handle.fetchHistory()).events ?? []);
          }
        }) as Promise<DataQualityPipelineResult>;
      const result = await pipeline('wait');
      // The profiling wait read the outlook, found the follow-up as the run completed and followed it to its end:
      // no activity of the workflow's own looked for it or waited for it, and the one marker is the input check's.
      const events = histories[0] ?? [];
      const activities = scheduledActivities(events);
      assert.deepEqual(activities, ['waitForJob', 'waitForJob'], 'profiling with its follow-up, then the test run');
      const markers = events.flatMap((e) => e.markerRecordedEventAttributes?.markerName ?? []);
      assert.deepEqual(markers, ['core_local_activity']);
      console.log(`pipeline with a generation follow-up: ${events.length} history events`);
      const generated = bare.controls.jobs().filter((j) => j.job_key === 'run-test-generation');
      assert.equal(generated.length, 1);
      assert.equal(generated[0]?.source, 'system');
      assert.equal(result.generation?.jobId, generated[0]?.id, 'the follow-up, found without a target in the listing');
      assert.equal(result.generation?.wait.job.status, 'completed');

      const second = await pipeline('auto');
      assert.equal(second.generation, null, 'no generation follows a second completed run, and none is waited for');
      const err = await pipeline('wait').catch((e: unknown) => e);
      assert.ok(err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure, String(err));
      assert.equal(err.cause.type, 'GenerationJobNotFound');
      assert.match(err.cause.message, /only the first completed profiling run/);
      assert.equal(bare.controls.jobs().filter((j) => j.job_key === 'run-test-generation').length, 1);
    } finally {
      await bare.close();
    }
  });
});
