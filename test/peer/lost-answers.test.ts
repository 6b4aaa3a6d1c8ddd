/**
 * Lost and held submissions against the reference implementation, TestGen 5.134, through a proxy that loses or holds
 * chosen requests (test/helpers/holding-proxy.ts), with workers run as operators run them (child processes):
 *   - a submission whose answer is lost after TestGen created the job: the retry finds that job, by the metadata
 *     TestGen echoes (test runs) or by the run's own record (profiling runs: TestGen's listing names no target), and
 *     no second job is created;
 *   - the pipeline cancelled while the test run's own wait submits it, and that wait's worker killed before the
 *     held request commits: the test run it creates is found on TestGen, named in the progress, and canceled;
 *   - a workflow terminated while its test run's POST is held: the run it creates is cancelled by the activity that
 *     sent it, and by the suite's submitter when TestGen's gateway refuses that first cancel.
 * The simulator's fault injection covers the same paths (test/activities/exactly-once.test.ts,
 * test/e2e/worker-death-cancel.test.ts); these hold them to what a real deployment answers.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { ServiceClient, isTerminalJobStatus } from '../../src/api/index.js';
import { progressQuery, type JobRun, type Progress } from '../../src/contract/index.js';
import { ending } from '../helpers/ending.js';
import { startHoldingProxy, type Armed, type HoldingProxy } from '../helpers/holding-proxy.js';
import { submitterAt } from '../helpers/sim.js';
import { startWorkerProcess, type Proc } from '../helpers/processes.js';
import { startDevServerEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';
import { testGenNeed, startTestGen, testGenService, type TestGenPeer } from '../helpers/testgen.js';
import { eventually } from '../helpers/wait.js';
import { needing } from '../helpers/needs.js';

const polling = { pollIntervalMs: 500, maxPollIntervalMs: 1_000 };
const LONG = { timeout: 5 * 60_000 };
const CANCEL_REQUESTED = proto.temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED;

/** The job id TestGen answered to the one request a rule took: `202 {"id": …}`. */
function answeredId(armed: Armed): string {
  assert.equal(armed.hits, 1, 'the rule took exactly one request');
  const answer = armed.answers[0];
  assert.ok(answer && answer.status === 202, `TestGen accepted the submission: ${JSON.stringify(answer)}`);
  return (answer.body as { id: string }).id;
}

describe(
  'lost and held submissions against TestGen 5.134 (peer)',
  ...needing(testGenNeed(), () => {
    let t: TestEnv;
    let peer: TestGenPeer;
    let proxy: HoldingProxy;
    let client: ServiceClient;
    const workers: Proc[] = [];
    const work = mkdtempSync(join(tmpdir(), 'peer-lost-'));

    before(async () => {
      [t, peer] = await Promise.all([startDevServerEnv(), startTestGen()]);
      proxy = await startHoldingProxy(peer.url);
      client = new ServiceClient({ baseUrl: peer.url, apiBearer: { type: 'oauth', ...(await peer.authorize()) } });
    }, LONG);
    after(async () => {
      await Promise.all(workers.map((w) => w.stop('SIGKILL')));
      client?.close();
      await proxy?.close();
      await peer?.close();
      await t?.env.teardown();
    });

    /** A worker process for TestGen, through the proxy, with an OAuth grant of its own (as each deployed worker has). */
    const startWorker = async (taskQueue: string, env: Record<string, string> = {}): Promise<Proc> => {
      const w = startWorkerProcess({
        TEMPORAL_ADDRESS: t.env.connection.options.address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        ...testGenService(peer, await peer.authorize(), proxy.url),
        DATAOPS_BLOB_DIR: join(work, 'blobs'),
        DATAOPS_EXPORT_DIR: join(work, 'exports'),
        // A pending profiling run on TestGen names no table group until its scheduler starts it (seconds): the lookup
        // of a lost profiling answer waits for that within the settle time (the default is 60 s).
        DATAOPS_SUBMIT_SETTLE_MS: '30000',
        LOG_LEVEL: 'WARN',
        ...env,
      });
      workers.push(w);
      return w;
    };

    const start = <T>(taskQueue: string, type: string, input: unknown) =>
      t.env.client.workflow.start(type, {
        taskQueue,
        workflowId: `${type}-${uniqueTaskQueue('lost')}`,
        args: [input],
      }) as Promise<WorkflowHandle<() => Promise<T>>>;

    const posts = (path: RegExp) => proxy.forwarded().filter((r) => r.method === 'POST' && path.test(r.path));

    const lostAnswers = [
      {
        what: 'a test run whose answer is lost is found by its metadata',
        workflow: 'dataops.runTestSuite',
        path: () => `/api/v1/test-suites/${peer.demo.testSuiteId}/test-runs`,
        input: () => ({ testSuiteId: peer.demo.testSuiteId }),
      },
      {
        what: 'a profiling run whose answer is lost is found by its record',
        workflow: 'dataops.profileTableGroup',
        path: () => `/api/v1/table-groups/${peer.demo.tableGroupId}/profiling-runs`,
        input: () => ({ tableGroupId: peer.demo.tableGroupId }),
      },
    ];
    for (const lostAnswer of lostAnswers)
      test(`${lostAnswer.what}: one run, followed to the end`, LONG, async () => {
        const queue = uniqueTaskQueue(`lost-${lostAnswer.workflow}`);
        await startWorker(queue);
        const path = new RegExp(`^${lostAnswer.path()}$`);
        const before = posts(path).length;
        const lost = proxy.arm({ method: 'POST', path, action: 'lose' });
        const handle = await start<{ job: JobRun }>(queue, lostAnswer.workflow, { ...polling, ...lostAnswer.input() });
        const end = await ending<{ job: JobRun }>(handle);
        assert.equal(end.outcome, 'ok', end.failure);
        const { job } = end.result!;
        assert.equal(job.jobId, answeredId(lost), 'the run TestGen created for the lost answer is the one followed');
        assert.equal(job.reconciled, true, 'found by the lookup, not by an answer');
        assert.equal(posts(path).length - before, 1, 'no second submission reached TestGen');
        assert.equal(job.wait.job.status, 'completed');
      });

    test(
      'a profiling run whose answer is lost, on a profile not declared its only writer: named, never sent again',
      LONG,
      async () => {
        // TestGen keeps nothing of the caller on a profiling run: without the declaration, the run the lost answer
        // created cannot be told from another client's, so the workflow fails naming it rather than report it.
        const queue = uniqueTaskQueue('lost-undeclared');
        await startWorker(queue, { DATAOPS_SOLE_WRITER: 'false' });
        const path = new RegExp(`^${lostAnswers[1]!.path()}$`);
        const before = posts(path).length;
        const lost = proxy.arm({ method: 'POST', path, action: 'lose' });
        const handle = await start(queue, 'dataops.profileTableGroup', { ...polling, ...lostAnswers[1]!.input() });
        const end = await ending(handle);
        assert.equal(end.outcome, 'failed', `ended ${end.outcome}`);
        assert.match(end.failure ?? '', /SubmissionOutcomeUnknown/);
        assert.ok(end.failure?.includes(`new job ${answeredId(lost)}`), `the run named in: ${end.failure}`);
        assert.equal(posts(path).length - before, 1, 'no second submission reached TestGen');
      },
    );

    test(
      "the test run's wait is cancelled while it submits the run, and its worker dies: that run is found and canceled",
      LONG,
      async () => {
        const queue = uniqueTaskQueue('cancel-death');
        // The held request outlives the worker: the worker's request timeout is longer than the hold. No workflow cache:
        // the task after the dead attempt's timeout goes to the other worker at once, not to the dead one's sticky queue.
        const env = { DATAOPS_TIMEOUT_MS: '20000', DATAOPS_MAX_CACHED_WORKFLOWS: '0' };
        const pair = [await startWorker(queue, env), await startWorker(queue, env)];
        const path = new RegExp(`^/api/v1/test-suites/${peer.demo.testSuiteId}/test-runs$`);
        const before = posts(path).length;
        // Held a little longer than the dead attempt takes to time out: the run is created just as the workflow starts
        // looking for it, so it is found while TestGen is still starting it (a demo run takes about 9 s).
        const held = proxy.arm({ method: 'POST', path, action: 'hold', holdMs: 6_000 });
        const handle = await start<unknown>(queue, 'dataops.dataQualityPipeline', {
          ...polling,
          tableGroupId: peer.demo.tableGroupId,
          testSuiteId: peer.demo.testSuiteId,
          testGeneration: 'skip',
          waitStrategy: 'heartbeat',
          heartbeatTimeoutMs: 5_000,
          cancelTimeoutMs: 60_000,
        });
        await eventually('the test run POST is held', () => held.hits === 1, { tries: 2_400, delayMs: 50 });
        // The cancel reaches the wait while it sends: the wait lets the send finish (it carries a job), so the workflow
        // waits for its answer. Then the worker dies, and the attempt times out with no retry (it is cancel-requested).
        await handle.cancel();
        const pending = await eventually(
          "the wait's cancel requested",
          async () => {
            const activity = (await handle.describe()).raw.pendingActivities?.[0];
            return activity?.state === CANCEL_REQUESTED ? activity : undefined;
          },
          { tries: 200, delayMs: 50 },
        );
        const victim = pair.find((p) => (pending.lastWorkerIdentity ?? '').startsWith(`${p.child.pid}@`));
        assert.ok(victim, `the worker running the wait (${pending.lastWorkerIdentity})`);
        await victim.stop('SIGKILL');
        const end = await ending(handle);
        await eventually('the held request reaches TestGen', () => held.answers.length === 1, {
          tries: 400,
          delayMs: 50,
        });
        assert.equal(end.outcome, 'cancelled', end.failure);
        const created = answeredId(held);
        assert.equal(posts(path).length - before, 1, 'one test run submitted');
        const progress: Progress = await handle.query(progressQuery);
        assert.ok(
          progress.jobs.some((j) => j.role === 'test_run' && j.jobId === created),
          `the run the held request created is named in the progress: ${JSON.stringify(progress.jobs)}`,
        );
        assert.equal(progress.remoteCancel?.jobId, created, 'and it is the job the workflow cancelled');
        assert.equal(progress.remoteCancel?.confirmed, true);
        // TestGen runs the demo suite in 2–9 s: on a slow machine the run may end before the cancel reaches it. Either
        // way the workflow cancelled it or saw it end, and says which: never left running, never "canceled" untrue.
        const final = (await client.jobs.get(created)).status;
        assert.ok(isTerminalJobStatus(final), `TestGen's run ended: ${final}`);
        assert.equal(progress.remoteCancel?.finalStatus, final, "the workflow reports the run's real final status");
      },
    );

    // The runs above carried our submission id, and TestGen shows it on their summaries: seen at the mark, a lost
    // answer is then found by that id alone (src/exactly-once/reconcile.ts, keepsOurId).
    test(
      'once TestGen shows our submission id, a lost test-run answer is found by it, through the suite’s submitter',
      LONG,
      async () => {
        const queue = uniqueTaskQueue('lost-unlocked');
        await startWorker(queue);
        const submitterId = submitterAt(proxy.url, queue, 'tests', peer.demo.testSuiteId);
        const path = new RegExp(`^/api/v1/test-suites/${peer.demo.testSuiteId}/test-runs$`);
        const before = posts(path).length;
        const lost = proxy.arm({ method: 'POST', path, action: 'lose' });
        const handle = await start<{ job: JobRun }>(queue, 'dataops.runTestSuite', {
          ...polling,
          testSuiteId: peer.demo.testSuiteId,
        });
        const end = await ending<{ job: JobRun }>(handle);
        assert.equal(end.outcome, 'ok', end.failure);
        assert.equal(end.result!.job.jobId, answeredId(lost), 'the run TestGen created for the lost answer');
        assert.equal(end.result!.job.reconciled, true);
        assert.equal(posts(path).length - before, 1, 'no second submission reached TestGen');
        // The suite's submitter sent it: its describe throws WorkflowNotFoundError where it was never asked.
        await t.env.client.workflow.getHandle(submitterId).describe();
      },
    );

    // The workflow is terminated while the POST is held, so nobody will watch the run it creates, and the suite's
    // submitter's batch, which sent it, cancels it. The first cancel is refused before TestGen (a gateway's 503): the
    // batch's retry finds the run and cancels it again (src/exactly-once/requester-gone.ts).
    test(
      'a test run created for a workflow terminated while its POST was held is cancelled, though the first cancel was refused',
      LONG,
      async () => {
        const queue = uniqueTaskQueue('gone-held');
        await startWorker(queue);
        const path = new RegExp(`^/api/v1/test-suites/${peer.demo.testSuiteId}/test-runs$`);
        const before = posts(path).length;
        const held = proxy.arm({ method: 'POST', path, action: 'hold', holdMs: 3_000 });
        const refused = proxy.arm({ method: 'POST', path: /^\/api\/v1\/jobs\/[^/]+\/cancel$/, action: 'refuse' });
        const handle = await start<unknown>(queue, 'dataops.runTestSuite', {
          ...polling,
          testSuiteId: peer.demo.testSuiteId,
        });
        await eventually('the test run POST is held', () => held.hits === 1, { tries: 2_400, delayMs: 50 });
        await handle.terminate('gone while its test run is sent');
        await eventually('the held request reaches TestGen', () => held.answers.length === 1, {
          tries: 400,
          delayMs: 50,
        });
        const created = answeredId(held);
        const cancels = () => posts(new RegExp(`^/api/v1/jobs/${created}/cancel$`));
        await eventually('the refused cancel tried again, and taken by TestGen', () => cancels().length > 0, {
          tries: 1_200,
          delayMs: 50,
        });
        assert.equal(refused.hits, 1, 'the first cancel was refused');
        assert.equal(posts(path).length - before, 1, 'one test run submitted, none sent again');
        const taken = cancels()[0]!.status;
        // TestGen runs the demo suite in 2–9 s: a run that ended before the cancel answers 409, and stays as it ended.
        assert.ok(taken === 200 || taken === 409, `TestGen answered the cancel ${taken}`);
        const final = await eventually(
          "TestGen's run ended",
          async () => {
            const { status } = await client.jobs.get(created);
            return isTerminalJobStatus(status) ? status : undefined;
          },
          { tries: 600, delayMs: 100 },
        );
        if (taken === 200) assert.equal(final, 'canceled', 'the run it cancelled ended canceled');
        // The suite's submitter was asked for the run alone: the cancel was its batch's own, not handed over.
        const submitter = t.env.client.workflow.getHandle(
          submitterAt(proxy.url, queue, 'tests', peer.demo.testSuiteId),
        );
        // Its requests, that is: the ask, gone with its workflow, may also have withdrawn its request (a `withdraw`).
        const asked = ((await submitter.fetchHistory()).events ?? []).flatMap((e) => {
          const signal = e.workflowExecutionSignaledEventAttributes;
          const payload = signal?.signalName === 'submit' ? signal.input?.payloads?.[0]?.data : undefined;
          return payload ? [(JSON.parse(Buffer.from(payload).toString('utf8')) as { activity: string }).activity] : [];
        });
        assert.deepEqual(asked, ['submitTestRun'], 'the submitter was asked for the run only');
      },
    );
  }),
);
