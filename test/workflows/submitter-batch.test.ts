/**
 * A target's submitter sends what queued behind a send in one batch (src/activities/send-in-turn.ts): one activity for
 * the batch, each request answered once with its own job; a request refused for good is answered with its failure and
 * the batch goes on; a failure a retry may mend stops the batch there, and the retry sends from it, nothing twice.
 * Dev server and simulator, real sockets.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WithStartWorkflowOperation } from '@temporalio/client';
import {
  SUBMITTER_WORKFLOW_TYPE,
  requestsQuery,
  submitUpdate,
  type WriteAnswer,
  type WriteRequest,
} from '../../src/contract/submitter.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;
const SLOW = { pendingMs: 600_000, claimMs: 600_000, runMs: 6_000_000, cancelMs: 200, interruptMs: 200 };

describe("a target's submitter, in batches", () => {
  const s = devServerAndSimulator({ jobDurations: SLOW });
  const client = () => s.d.env.client;
  const profiling = (target: string) =>
    s.sim.controls.jobs().filter((j) => j.job_key === 'run-profile' && j.table_group_id === target);

  /**
   * Asks the submitter of `target` on `taskQueue` for `n` profiling runs: the first alone, held by the simulator
   * until the rest have queued behind it. `whileHeld` adds faults once the first send is held. Returns the answers
   * in the order asked, the jobs created, and the batches the submitter sent (its `sendInTurn` activities).
   */
  async function queuedBehindOne(taskQueue: string, target: string, n: number, whileHeld: () => void = () => {}) {
    const submitterId = `dataops-submit/${taskQueue}/default/profiling/${target}`;
    const requesters = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        client().workflow.start('dataops.profileTableGroup', {
          taskQueue: `${taskQueue}-nobody`,
          workflowId: `batch-requester-${i}-${taskQueue}`,
          args: [{ tableGroupId: target }],
        }),
      ),
    );
    const requests: WriteRequest[] = requesters.map((w) => ({
      id: `${w.workflowId}/${w.firstExecutionRunId}/1`,
      activity: 'submitProfilingRun',
      input: {
        profile: 'default',
        targetId: target,
        requester: { workflowId: w.workflowId, runId: w.firstExecutionRunId, activityId: '1' },
      },
      outageToleranceMs: 600_000,
      askAgainUntil: Date.now() + 600_000,
    }));
    // Each asks once, and the first few wait for their answer in their update (HELD_AT_MOST in the submitter); a
    // request told its place asks again, under a fresh update id, as through-submitter.ts does.
    const ask = async (r: WriteRequest, again = 0): Promise<WriteAnswer> => {
      const reply = await client().workflow.executeUpdateWithStart(submitUpdate, {
        updateId: `${r.id}#${again}`,
        args: [r],
        startWorkflowOperation: new WithStartWorkflowOperation(SUBMITTER_WORKFLOW_TYPE, {
          workflowId: submitterId,
          taskQueue,
          workflowIdConflictPolicy: 'USE_EXISTING',
          args: [{}],
        }),
      });
      if (!('queued' in reply)) return reply;
      told.push(reply.queued);
      await new Promise((resolve) => setTimeout(resolve, 200));
      return ask(r, again + 1);
    };
    const told: number[] = [];
    const before = new Set(profiling(target).map((j) => j.id));
    const held = s.sim.controls.addFault({
      kind: 'delay',
      delay_ms: 3_000,
      method: 'POST',
      path: `/table-groups/${target}/profiling-runs`,
    });
    const first = ask(requests[0]!);
    await eventually('the first send held', () => s.sim.controls.faults().find((f) => f.id === held.id)?.hits === 1);
    whileHeld();
    const rest = requests.slice(1).map(ask);
    await eventually('the rest queued behind it', async () => {
      const { queued } = await client().workflow.getHandle(submitterId).query(requestsQuery);
      return queued.length === n - 1;
    });
    const answers = await Promise.all([first, ...rest]);
    const history = await client().workflow.getHandle(submitterId).fetchHistory();
    const batches = (history.events ?? []).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'dataops.sendInTurn',
    ).length;
    for (const e of history.events ?? [])
      console.log(
        'EV',
        e.eventId?.toString(),
        e.eventType,
        e.activityTaskScheduledEventAttributes?.input?.payloads?.[0]?.data
          ? Buffer.from(e.activityTaskScheduledEventAttributes.input.payloads[0].data).toString().slice(0, 300)
          : '',
      );
    await Promise.all(requesters.map((w) => w.terminate('done')));
    return { answers, created: profiling(target).filter((j) => !before.has(j.id)), batches, told };
  }

  const jobOf = (a: WriteAnswer | undefined): string => {
    assert.ok(a && 'result' in a, `an answer with a job: ${JSON.stringify(a)}`);
    return (a.result as { jobId: string }).jobId;
  };

  test('the requests that queued behind a send go in one batch, each answered with a job of its own', async () => {
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const { answers, created, batches } = await queuedBehindOne(taskQueue, TG.finance, 5);
      const jobs = answers.map(jobOf);
      assert.equal(new Set(jobs).size, 5, 'five jobs, one per request');
      assert.deepEqual(new Set(jobs), new Set(created.map((j) => j.id)), 'each created once, and only those');
      assert.equal(batches, 2, 'the first alone, then the four that queued behind it in one activity');
    });
  });

  test('past the first few, a request is told its place, asks again, and gets a job of its own', async () => {
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      // Nine behind a held send: Temporal admits 10 updates in flight per workflow, so only the first few wait in
      // theirs; the others are told how many are ahead, and ask again.
      const { answers, created, told } = await queuedBehindOne(taskQueue, TG.finance, 10);
      assert.ok(told.length >= 4, `the last four at least were told their place: ${told.join(', ')}`);
      assert.ok(
        told.every((n) => n >= 5),
        `told only when five or more were ahead: ${told.join(', ')}`,
      );
      const jobs = answers.map(jobOf);
      assert.equal(new Set(jobs).size, 10, 'a job for each request');
      assert.deepEqual(new Set(jobs), new Set(created.map((j) => j.id)), 'each created once, and only those');
    });
  });

  test('a request refused for good is answered with its failure, and the batch goes on', async () => {
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const path = `/table-groups/${TG.sales}/profiling-runs`;
      // Behind the held send, the second of the batch is refused (409): not retried, and not the others' answer.
      const { answers, created, batches } = await queuedBehindOne(taskQueue, TG.sales, 4, () =>
        s.sim.controls.addFault({ kind: 'status', status: 409, method: 'POST', path, skip: 1 }),
      );
      const refused = answers.filter((a) => 'failure' in a);
      assert.equal(refused.length, 1, JSON.stringify(answers));
      assert.equal((refused[0] as { failure: { type: string | null } }).failure.type, 'Conflict');
      const jobs = answers.filter((a) => 'result' in a).map(jobOf);
      assert.equal(new Set(jobs).size, 3);
      assert.deepEqual(new Set(jobs), new Set(created.map((j) => j.id)), 'the three others, each once');
      assert.equal(batches, 2, 'the refusal did not end the batch');
    });
  });

  test('a failure a retry may mend stops the batch there; its retry sends from it, and nothing twice', async () => {
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const path = `/table-groups/${TG.salesDev}/profiling-runs`;
      // Behind the held send, the second of the batch answers 503 (nothing created, but it may have been): the batch
      // attempt ends there, its retry looks for that send's job, finds none, and sends it and the rest.
      const { answers, created } = await queuedBehindOne(taskQueue, TG.salesDev, 4, () =>
        s.sim.controls.addFault({ kind: 'status', status: 503, method: 'POST', path, skip: 1 }),
      );
      const jobs = answers.map(jobOf);
      assert.equal(new Set(jobs).size, 4, 'a job for each request');
      assert.deepEqual(new Set(jobs), new Set(created.map((j) => j.id)), 'each created once, and only those');
    });
  });
});
