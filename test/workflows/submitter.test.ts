/**
 * The submitter of a target (src/exactly-once/workflow/submitter.ts), asked as the submitting activities ask it: a request asked
 * again under its id (a retry whose answer was lost) is answered again, never sent twice, and a request asked about
 * without being queued is not sent; what it sends for a workflow that is gone is undone. Dev server and simulator, real sockets.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { answerFrom } from '../../src/exactly-once/through-submitter.js';
import type { WriteRequest } from '../../src/exactly-once/messages.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { askSubmitter, deps } from '../helpers/submitter.js';
import { uniqueTaskQueue } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';
import { HOLD_AT_MOST_MS, faultHits } from '../helpers/sim.js';

const TG = SEED_IDS.tableGroups;
const SLOW = { pendingMs: 600_000, claimMs: 600_000, runMs: 6_000_000, cancelMs: 200, interruptMs: 200 };

describe("a target's submitter", () => {
  const s = devServerAndSimulator({ jobDurations: SLOW });
  const profiling = (target: string) =>
    s.sim.controls.jobs().filter((j) => j.job_key === 'run-profile' && j.table_group_id === target);

  /** A profiling request for `target` from `requester` (a workflow run of the test's), as an activity makes it. */
  const request = (id: string, target: string, requester: { workflowId: string; runId: string }): WriteRequest => ({
    id,
    activity: 'submitProfilingRun',
    input: { profile: 'default', targetId: target, requester: { ...requester, activityId: '1' } },
    outageToleranceMs: 60_000,
    askAgainUntil: Date.now() + 600_000,
  });

  /** Asks submitter `id` on `taskQueue`, starting it if need be, as through-submitter.ts does. */
  const ask = (taskQueue: string, id: string, r: WriteRequest) => askSubmitter(s.d.env.client, taskQueue, id, r);

  /** A requesting workflow that stays running: on a task queue nobody polls, it never takes a step. */
  const requesterOn = (taskQueue: string, name: string) =>
    s.d.env.client.workflow.start('dataops.profileTableGroup', {
      taskQueue: `${taskQueue}-nobody`,
      workflowId: `requester-${name}-${taskQueue}`,
      args: [{ tableGroupId: TG.finance }],
    });

  test('a request asked again under its id gets the same answer and sends nothing more', async () => {
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const requester = await requesterOn(taskQueue, 'again');
      const r = request(`${requester.workflowId}/x/1`, TG.finance, {
        workflowId: requester.workflowId,
        runId: requester.firstExecutionRunId,
      });
      const id = `dataops-submit/${taskQueue}/default/profiling/${TG.finance}`;
      const before = profiling(TG.finance).length;
      const [first, second] = await Promise.all([ask(taskQueue, id, r), ask(taskQueue, id, r)]);
      const third = await ask(taskQueue, id, { ...r, input: { ...r.input, targetId: TG.sales } });
      assert.ok('result' in first, JSON.stringify(first));
      assert.deepEqual(second, first, 'asked together: one answer');
      assert.deepEqual(third, first, 'asked again later, whatever it says now: the same answer');
      assert.equal(profiling(TG.finance).length - before, 1, 'sent once');
      const handle = s.d.env.client.workflow.getHandle(id);
      const known = await answerFrom(handle, `${r.id}-never-asked`, async () => false);
      assert.deepEqual(known, { withdrawn: true }, 'asked about, never queued: nothing sent');
      assert.equal(profiling(TG.finance).length - before, 1);
      await requester.terminate('done');
    });
  });

  test('what it sends for a workflow that is gone is cancelled', async () => {
    await withProjectWorker(s.d.env, await deps(s), async (taskQueue) => {
      const requester = await requesterOn(taskQueue, 'gone');
      // Held until the requester is gone.
      const held = s.sim.controls.addFault({
        kind: 'delay',
        delay_ms: HOLD_AT_MOST_MS,
        method: 'POST',
        path: `/table-groups/${TG.sales}/profiling-runs`,
      });
      const before = new Set(profiling(TG.sales).map((j) => j.id));
      const id = `dataops-submit/${taskQueue}/default/profiling/${TG.sales}`;
      const r = request(`${requester.workflowId}/y/1`, TG.sales, {
        workflowId: requester.workflowId,
        runId: requester.firstExecutionRunId,
      });
      const answer = ask(taskQueue, id, r);
      await eventually('the send held', () => faultHits(s.sim, held) === 1);
      await requester.terminate('the requester is gone').finally(() => s.sim.controls.releaseFault(held.id));
      const a = await answer;
      assert.ok('failure' in a && a.failure.type === 'RequesterGone', JSON.stringify(a));
      const created = profiling(TG.sales).filter((j) => !before.has(j.id));
      assert.equal(created.length, 1, 'the held send committed');
      await eventually('the job cancelled', () => s.sim.controls.job(created[0]!.id)?.status === 'canceled');
    });
  });

  test('a question no worker answers in time is asked again: the request is answered once a worker polls', async () => {
    // The submitter's task queue has no worker yet (as a run that has just continued as new, or a new target's
    // submitter, on a busy or restarting worker): each requester's question times out, and it asks again instead of
    // failing its attempt. Asked through a client on the worker's native connection, as a requesting activity asks,
    // the question ends with that client's own timeout ("Timeout expired", not the server's answer): measured at
    // N = 1,000 on targets of their own, half the profiling waits failed an attempt on it until both were matched.
    const taskQueue = uniqueTaskQueue('late-worker');
    const native = await NativeConnection.connect({ address: s.d.env.address });
    try {
      const clients = { test: s.d.env.client, native: new Client({ connection: native }) };
      const targets = { test: TG.finance, native: TG.sales };
      const asked = await Promise.all(
        (['test', 'native'] as const).map(async (via) => {
          const requester = await requesterOn(taskQueue, `late-${via}`);
          const target = targets[via];
          const id = `dataops-submit/${taskQueue}/default/profiling/${target}`;
          const r = request(`${requester.workflowId}/z/1`, target, {
            workflowId: requester.workflowId,
            runId: requester.firstExecutionRunId,
          });
          const unanswered: unknown[] = [];
          const answer = askSubmitter(clients[via], taskQueue, id, r, unanswered).then(
            (a) => ({ a }),
            (err: unknown) => ({ err }),
          );
          return { via, requester, target, before: profiling(target).length, unanswered, answer };
        }),
      );
      // The dev server gives a query 30 s before it says no worker took it; the native client's deadline ends it then.
      await eventually(
        'each question timed out',
        () =>
          asked.every(({ unanswered }) =>
            unanswered.some((err) => /query timed out|timeout expired/i.test(String((err as Error).cause))),
          ),
        { tries: 1_200, delayMs: 100 },
      );
      await withProjectWorker(
        s.d.env,
        await simDeps(s.sim),
        async () => {
          for (const { via, target, before, answer } of asked) {
            const settled = await answer;
            assert.ok(
              'a' in settled && 'result' in settled.a,
              `${via}: answered with a job: ${JSON.stringify(settled)}`,
            );
            assert.equal(profiling(target).length - before, 1, `${via}: sent once`);
          }
        },
        taskQueue,
      );
      await Promise.all(asked.map(({ requester }) => requester.terminate('done')));
    } finally {
      await native.close();
    }
  });
});
