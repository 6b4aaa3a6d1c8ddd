/**
 * The pipeline's test run is submitted as every job is, by the workflow once the profiling step is over: its own
 * submission activity asks the suite's submitter, which sends it, whatever the wait's strategy. The same exactly-once
 * rules, and a cancel while it is submitted cancels the run it created, never leaves it running unwatched. Dev server
 * (the lock reads visibility) and the simulator, through real sockets.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CancelledFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { progressQuery, type DataQualityPipelineResult } from '../../src/contract/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { activityTypes } from '../helpers/fresh-run.js';
import { cancelWhileSubmitting, devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { submitterAt } from '../helpers/sim.js';

type Event = temporal.api.history.v1.IHistoryEvent;

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const base = {
  tableGroupId: TG.finance,
  testSuiteId: TS.financeProd,
  pollIntervalMs: 100,
  maxPollIntervalMs: 100,
  onGateFailure: 'report',
};

describe("the pipeline's test run", () => {
  const s = devServerAndSimulator();

  const testRuns = () => s.sim.controls.jobs().filter((j) => j.job_key === 'run-tests');
  const testRunPosts = () =>
    s.sim.controls.requests().filter((r) => r.method === 'POST' && r.path.includes('/test-runs')).length;

  /** Starts the pipeline on a worker of its own, runs `during`, and returns its ending and history. */
  async function pipeline(
    input: Record<string, unknown>,
    during: (handle: WorkflowHandle) => Promise<void> = async () => undefined,
  ) {
    return withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const handle = await s.d.env.client.workflow.start('dataops.dataQualityPipeline', {
        taskQueue,
        workflowId: `test-run-${taskQueue}`,
        args: [{ ...base, ...input }],
      });
      await during(handle);
      const ended = await handle.result().then(
        (result: DataQualityPipelineResult) => ({ result, error: undefined }),
        (error: unknown) => ({ result: undefined, error }),
      );
      const events: Event[] = (await handle.fetchHistory()).events ?? [];
      return { ...ended, events, progress: await handle.query(progressQuery), handle };
    });
  }

  for (const waitStrategy of ['heartbeat', 'deferrable'] as const)
    test(`${waitStrategy}: submitted after the profiling step by its own activity; one run, linked to the pipeline`, async () => {
      const before = testRuns().length;
      const run = await pipeline({ waitStrategy, testGeneration: 'skip' });
      assert.equal(run.error, undefined, String(run.error));
      const wait = waitStrategy === 'heartbeat' ? 'waitForJob' : 'checkJob';
      const [profiling, tests] = [
        ['submitProfilingRun', wait],
        ['submitTestRun', wait],
      ];
      assert.deepEqual(activityTypes(run.events), [...profiling, ...tests]);
      const created = testRuns().slice(before);
      assert.equal(created.length, 1, 'exactly one test run');
      assert.equal(run.result?.testRun.job.jobId, created[0]?.id);
      assert.equal(run.result?.testRun.job.reconciled, false);
      assert.equal(run.result?.testRun.job.wait.job.status, 'completed');
      // The run points back at the pipeline, and at the activity that submitted it: the test run's own.
      const link = created[0]?.caller_metadata;
      assert.equal(link?.['workflow_id'], run.handle.workflowId);
      assert.equal(link?.['workflow_type'], 'dataops.dataQualityPipeline');
      const submitter = run.events.filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === `dataops.${tests[0]}`,
      );
      assert.match(
        String(link?.['submission_id']),
        new RegExp(`/${submitter.at(-1)?.activityTaskScheduledEventAttributes?.activityId}$`),
      );
    });

  test("testGeneration 'generate' starts a job between the two: each asked, then waited for", async () => {
    const run = await pipeline({ testGeneration: 'generate' });
    assert.equal(run.error, undefined, String(run.error));
    const each = (submit: string) => [submit, 'waitForJob'];
    assert.deepEqual(activityTypes(run.events), [
      ...each('submitProfilingRun'),
      ...each('submitTestGeneration'),
      ...each('submitTestRun'),
    ]);
  });

  test('a cancel while the ask is submitting: the submission finishes, the run is cancelled, the pipeline ends cancelled', async () => {
    const before = testRuns().length;
    const run = await pipeline({ testGeneration: 'skip' }, cancelWhileSubmitting(s, '/test-runs'));
    assert.ok(
      run.error instanceof WorkflowFailedError && run.error.cause instanceof CancelledFailure,
      String(run.error),
    );
    const created = testRuns().slice(before);
    assert.equal(created.length, 1, 'the held submission created its run');
    assert.equal(s.sim.controls.job(created[0]?.id ?? '')?.status, 'canceled', 'and it was not left running');
    assert.equal(run.progress.remoteCancel?.jobId, created[0]?.id, 'the workflow cancelled it itself');
    assert.equal(run.progress.remoteCancel?.confirmed, true);
  });

  test("an answer lost, and the lookup that would find it failing: the batch's next attempt finds the run, and sends nothing", async () => {
    const before = testRuns().length;
    const posts = testRunPosts();
    // The service creates the run and the answer is lost; the lookup after it fails (the listings before it, the
    // watermarks of both submissions, go through), so the suite's submitter's batch fails its attempt, its send
    // recorded at the submitter. The next attempt reads that record, and looks before sending.
    s.sim.controls.addFault({ kind: 'drop_after_commit', method: 'POST', path: '/test-runs' });
    s.sim.controls.addFault({ kind: 'status', status: 503, method: 'GET', path: '/projects/DEMO/jobs', skip: 2 });
    const run = await pipeline({ testGeneration: 'skip' });
    assert.equal(run.error, undefined, String(run.error));
    const created = testRuns().slice(before);
    assert.equal(created.length, 1, 'exactly one test run');
    assert.equal(run.result?.testRun.job.jobId, created[0]?.id);
    assert.equal(run.result?.testRun.job.reconciled, true, 'found, not sent again');
    assert.equal(testRunPosts(), posts + 1, 'one POST');
    const { taskQueue } = await run.handle.describe();
    const batch = await s.d.env.client.workflow
      .getHandle(submitterAt(s.sim.url, taskQueue, 'tests', TS.financeProd))
      .fetchHistory();
    const attempts = (batch.events ?? []).flatMap((e) => e.activityTaskStartedEventAttributes?.attempt ?? []);
    assert.ok(
      attempts.some((attempt) => attempt > 1),
      `the batch was retried (attempts ${attempts.join(', ')})`,
    );
  });
});
