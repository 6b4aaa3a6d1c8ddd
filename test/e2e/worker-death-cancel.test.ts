/**
 * A worker dies while it sends a job's submission (the POST is sent and commits), and the workflow is cancelled before
 * any other attempt of that send runs: the pipeline's test run or its profiling run, each asked for by its submission
 * activity, with either wait strategy. The job the dead attempt created must still be found and
 * cancelled: the workflow ends cancelled only with no job of its own left running. With `cancelRemoteJob: false` the
 * workflow ends cancelled without waiting for it: the submitter's retried batch finds the job and leaves it running,
 * and the target's submitter is then free.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ending } from '../helpers/ending.js';
import { cellIds } from '../helpers/matrix.js';
import { worldOfCells } from '../helpers/matrix-world.js';
import { requestsQuery } from '../../src/exactly-once/messages.js';
import { isTerminalJobStatus } from '../../src/vocabulary.js';
import { eventually } from '../helpers/wait.js';
import { submitterAt } from '../helpers/sim.js';

const LONG = { timeout: 10 * 60_000 };

// The scenarios run side by side: each has its own cell, task queue and workers, and spends most of its time waiting
// for a dead attempt's heartbeat timeout.
describe('a worker that dies mid-submission, then a cancel', { concurrency: 5 }, () => {
  // A deployment that drops a test run's metadata: a lost test run is found by its suite, as a profiling run by its
  // table group (test/e2e/worker-death-test-run.test.ts has the one that keeps it, found by its id).
  const world = worldOfCells(5, undefined, { variants: { callerMetadata: false } });

  /** The job the dying worker submits: the test run, or the profiling run. */
  const submissions = (cell: number, queue: string, url: string) => {
    const ids = cellIds(cell);
    return {
      tests: {
        role: 'test_run',
        jobKey: 'run-tests',
        target: ids.target,
        post: `/test-suites/${ids.target}/test-runs`,
        submitter: submitterAt(url, queue, 'tests', ids.target),
      },
      profiling: {
        role: 'profiling',
        jobKey: 'run-profile',
        target: ids.tableGroup,
        post: `/table-groups/${ids.tableGroup}/profiling-runs`,
        submitter: submitterAt(url, queue, 'profiling', ids.tableGroup),
      },
    };
  };

  const scenario =
    (
      strategy: 'heartbeat' | 'deferrable',
      cell: number,
      cancelRemoteJob = true,
      which: 'tests' | 'profiling' = 'tests',
    ) =>
    async () => {
      const w = world();
      const queue = `death-then-cancel-${strategy}-${cell}`;
      const job = submissions(cell, queue, w.controls.url)[which];
      // The held POST outlives the worker: its timeout is longer than the hold.
      const slow = { DATAOPS_TIMEOUT_MS: '10000' };
      // Two workers: the one running the wait dies, the other takes the cancel at once, while the dead attempt has
      // not yet timed out.
      const workers = [w.startWorker(queue, slow), w.startWorker(queue, slow)];
      const ids = cellIds(cell);
      const held = await w.controls.addFault({ kind: 'delay', delay_ms: 3_000, method: 'POST', path: job.post });
      // The job would otherwise end on its own before anybody could tell cancelled from left running.
      await w.controls.planJobs({ job_key: job.jobKey, target_id: job.target, durations: { runMs: 600_000 } });
      const handle = await w.client.workflow.start('dataops.dataQualityPipeline', {
        taskQueue: queue,
        workflowId: `death-cancel-${cell}-${Date.now()}`,
        args: [
          {
            tableGroupId: ids.tableGroup,
            testSuiteId: ids.target,
            testGeneration: 'skip',
            pollIntervalMs: 200,
            maxPollIntervalMs: 400,
            waitStrategy: strategy,
            // Longer than a dead worker's sticky workflow task takes to time out (10 s): the cancel is taken while the
            // dead attempt still counts as running, so the wait times out and is not retried. (A deferrable pipeline's
            // submission activity has a submission's heartbeat timeout, 20 s, and is retried: it finds the job.)
            heartbeatTimeoutMs: 30_000,
            cancelTimeoutMs: 30_000,
            cancelRemoteJob,
          },
        ],
      });
      await eventually(
        `the ${job.role} POST is held`,
        async () => {
          const faults = await w.controls.faults();
          return faults.find((f) => f.id === held.id)?.hits === 1;
        },
        { tries: 1_200, delayMs: 50 },
      );
      // The worker sending it: the one running the activity of the target's submitter.
      const described = await w.client.workflow.getHandle(job.submitter).describe();
      const identity = described.raw.pendingActivities?.[0]?.lastWorkerIdentity ?? '';
      const victim = workers.find((p) => identity.startsWith(`${p.child.pid}@`));
      assert.ok(victim, `the worker sending the submission (${identity})`);
      await victim.stop('SIGKILL');
      const jobsOnTarget = async () =>
        (await w.controls.jobs()).filter(
          (j) => j.job_key === job.jobKey && (j.test_suite_id ?? j.table_group_id) === job.target,
        );
      // The held request still commits: a job exists that no answer named.
      await eventually(`the held ${job.role} job is created`, async () => (await jobsOnTarget()).length === 1, {
        tries: 200,
        delayMs: 50,
      });
      await handle.cancel();
      const end = await ending(handle);
      const outcome = end.failure ? `${end.outcome}: ${end.failure}` : end.outcome;
      // A job left running never comes to rest: only a cancelled one is waited for.
      const runs = cancelRemoteJob
        ? await eventually(
            'the test run at rest',
            async () => {
              const all = await jobsOnTarget();
              return all.every((j) => isTerminalJobStatus(j.status)) ? all : undefined;
            },
            { tries: 200, delayMs: 100 },
          ).catch(async () => jobsOnTarget())
        : await jobsOnTarget();
      assert.equal(runs.length, 1, `one ${job.role} job (the workflow ended ${outcome})`);
      assert.equal(outcome, 'cancelled');
      if (which === 'profiling') {
        const types = ((await handle.fetchHistory()).events ?? []).flatMap(
          (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
        );
        assert.equal(
          types[0],
          'dataops.submitProfilingRun',
          `the ask submitted the profiling run: ${types.join(', ')}`,
        );
      }
      if (cancelRemoteJob) {
        assert.equal(runs[0]!.status, 'canceled', `the ${job.role} job the dead attempt created: ${runs[0]!.status}`);
        return;
      }
      // The workflow did not wait for the dead send: the submitter's batch, retried, finds the job and answers it,
      // leaving it running (its workflow was cancelled and asked to leave it), and then holds nothing: the next
      // pipeline on this target waits for nothing.
      await eventually(
        "the target's submitter holds nothing",
        async () => {
          const holding = await w.client.workflow.getHandle(job.submitter).query(requestsQuery);
          return holding.sending.length === 0 && holding.queued.length === 0;
        },
        { tries: 1_800, delayMs: 100 },
      );
      const left = await jobsOnTarget();
      assert.equal(left.length, 1, `still one ${job.role} job`);
      assert.ok(
        !['canceled', 'cancel_requested'].includes(left[0]!.status),
        `cancelRemoteJob: false leaves the ${job.role} job running: ${left[0]!.status}`,
      );
    };

  for (const [n, strategy] of (['heartbeat', 'deferrable'] as const).entries())
    test(
      `${strategy} wait: the test run the dead attempt created is cancelled, and the workflow ends cancelled`,
      LONG,
      scenario(strategy, n),
    );
  test(
    'cancelRemoteJob false: the test run is found and left running, and the workflow ends cancelled',
    LONG,
    scenario('heartbeat', 2, false),
  );
  test(
    "the wait's own profiling run, submitted as the worker died, is found and cancelled; the workflow ends cancelled",
    LONG,
    scenario('heartbeat', 3, true, 'profiling'),
  );
  test(
    "cancelRemoteJob false: the wait's own profiling run is found and left running, its lock released",
    LONG,
    scenario('heartbeat', 4, false, 'profiling'),
  );
});
