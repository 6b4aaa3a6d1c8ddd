/**
 * A submitter keeps an answer while its requester may still ask for it, forgets it once the requester cannot, and
 * then ends (src/exactly-once/workflow/submitter.ts): no submitter outlives its requesters, none forgets an answer early. The
 * time-skipping server, so its minutes of idling pass at once; a real worker with the project's activities.
 *
 * The server skips no time while any activity is pending, so a requester still asking (its activity pending) is
 * tested on `stillAsking` itself, the question the submitter asks; the submitter's own test has its requester gone.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { Requester } from '../../src/exactly-once/messages.js';
import type { SubmitterState } from '../../src/exactly-once/workflow/submitter.js';
import { CALL } from '../../src/contract/activity-options.js';
import { simDeps, withHarnessWorker } from '../helpers/activities.js';
import { timeSkippingAndSimulator } from '../helpers/dev-and-sim.js';
import { eventually } from '../helpers/wait.js';

const MINUTE = 60_000;

describe("a submitter's idle end", () => {
  const s = timeSkippingAndSimulator();

  /** Runs `fn` while a worker with the harness workflows (the submitter among them) and our activities polls. */
  const withHarness = async <T>(fn: (taskQueue: string) => Promise<T>) =>
    withHarnessWorker(s.d.env, await simDeps(s.sim), fn);

  /** The workflow times (epoch ms) of `handle`'s events that carry `attributes`. */
  const timesOf = async (handle: WorkflowHandle, attributes: keyof temporal.api.history.v1.IHistoryEvent) =>
    ((await handle.fetchHistory()).events ?? [])
      .filter((e) => e[attributes])
      .map((e) => Number(e.eventTime!.seconds) * 1000 + Math.round((e.eventTime!.nanos ?? 0) / 1e6));

  /** A requesting workflow whose activity (`activity`) stays pending: scheduled on a task queue nobody polls. */
  const requesterOn = (taskQueue: string, name: string, activity = 'dataops.never') =>
    s.d.env.client.workflow.start('callActivity', {
      taskQueue,
      workflowId: `idle-${name}-${taskQueue}`,
      args: [activity, {}, { taskQueue: `${taskQueue}-nobody`, startToCloseTimeout: '30 days' }],
    });
  const pending = (handle: WorkflowHandle) =>
    eventually('the requesting activity pending', async () =>
      ((await handle.describe()).raw.pendingActivities ?? []).length > 0 ? true : undefined,
    );
  const requesterOf = (handle: WorkflowHandle & { firstExecutionRunId: string }, activityId = '1'): Requester => ({
    workflowId: handle.workflowId,
    runId: handle.firstExecutionRunId,
    activityId,
  });

  /**
   * A requester that has ended, and when (the server's time, which skipping in earlier tests may have moved ahead of
   * the clock's). One on a task queue nobody polls would hold the server's time: a task waiting in a queue, even of a
   * terminated workflow, keeps it from skipping. Seen ended by describe, not by asking its result: asking would let
   * the server skip time (to timers left by the activity's timeouts, hours ahead) before the submitter starts.
   */
  const endedRequester = async (tq: string, name: string) => {
    const requester = await s.d.env.client.workflow.start('callActivity', {
      taskQueue: tq,
      workflowId: `idle-${name}-${tq}`,
      args: ['dataops.stillAsking', [], CALL],
    });
    await eventually('the requester ended', async () =>
      (await requester.describe()).status.name === 'COMPLETED' ? true : undefined,
    );
    const [now] = (await timesOf(requester, 'workflowExecutionCompletedEventAttributes')) as [number];
    return { requester, now };
  };

  test('an answer whose requester is gone is kept for the lookup grace, then forgotten, and the submitter ends', async () => {
    await withHarness(async (tq) => {
      const { requester, now } = await endedRequester(tq, 'gone');
      const state: SubmitterState = {
        answers: [
          [
            `${requester.workflowId}/x/1`,
            {
              answer: { result: { jobId: 'job-1' } },
              keepUntil: now + 30 * 24 * 60 * MINUTE,
              requester: requesterOf(requester),
            },
          ],
        ],
      };
      const submitter = await s.d.env.client.workflow.start('dataops.submitter', {
        taskQueue: tq,
        workflowId: `idle-submitter-${tq}`,
        args: [state],
      });
      await submitter.result();
      const [started] = await timesOf(submitter, 'workflowExecutionStartedEventAttributes');
      const [ended] = await timesOf(submitter, 'workflowExecutionCompletedEventAttributes');
      const asked = await timesOf(submitter, 'activityTaskCompletedEventAttributes');
      // Idle a minute, asked: first seen gone, kept; idle 2, asked: gone 2 minutes, kept; idle 4, asked: gone 6
      // minutes, forgotten; idle 8 with nothing to keep: ended.
      assert.ok(ended! - started! >= 5 * MINUTE, `kept for the lookup grace (ended after ${ended! - started!} ms)`);
      assert.ok(ended! - started! < 30 * MINUTE, 'then forgotten: the submitter ended, not at the answer’s keepUntil');
      assert.equal(asked.length, 3, 'asked three times whether its requester still asks');
    });
  });

  test('hole 3: an answer is kept for the lookup grace from when its requester is first seen gone, not from when last seen asking', async () => {
    await withHarness(async (tq) => {
      const { requester, now } = await endedRequester(tq, 'late');
      // Last seen asking 9 minutes ago, at the check before this run's first (checks go up to 10 minutes apart): its
      // wait has just ended, and its workflow's lookup of the answer comes now.
      const submitter = await s.d.env.client.workflow.start('dataops.submitter', {
        taskQueue: tq,
        workflowId: `idle-late-submitter-${tq}`,
        args: [
          {
            answers: [
              [
                `${requester.workflowId}/x/1`,
                {
                  answer: { result: { jobId: 'job-1' } },
                  keepUntil: now + 30 * 24 * 60 * MINUTE,
                  requester: requesterOf(requester),
                },
              ],
            ],
          } satisfies SubmitterState,
        ],
      });
      await submitter.result();
      const [started] = await timesOf(submitter, 'workflowExecutionStartedEventAttributes');
      const [ended] = await timesOf(submitter, 'workflowExecutionCompletedEventAttributes');
      // First seen gone at the first check (a minute in); kept 5 minutes from then.
      assert.ok(
        ended! - started! >= 6 * MINUTE,
        `kept for the grace after it was seen gone: ended after ${ended! - started!} ms`,
      );
    });
  });

  test('a requester still asks while its requesting activity is pending, and not once its workflow is gone', async () => {
    await withHarness(async (tq) => {
      const requester = await requesterOn(tq, 'asking');
      await pending(requester);
      const ask = (requesters: Requester[]) =>
        s.d.env.client.workflow.execute('callActivity', {
          taskQueue: tq,
          workflowId: `idle-ask-${Math.random().toString(36).slice(2)}-${tq}`,
          args: ['dataops.stillAsking', requesters, CALL],
        }) as Promise<boolean[]>;
      const unknown = { workflowId: `idle-nobody-${tq}`, runId: requester.firstExecutionRunId, activityId: '1' };
      assert.deepEqual(
        await ask([requesterOf(requester), requesterOf(requester, '2'), unknown]),
        [true, false, false],
        'its pending activity asks; another activity of the same run, or a workflow never started, does not',
      );
      await requester.terminate('the requester is gone');
      assert.deepEqual(await ask([requesterOf(requester)]), [false], 'a terminated requester asks no more');
      // Its ask cancelled or ended unanswered, its workflow settles the request: the answer is kept while that settle
      // is pending, however long it waits for a worker (else the submitter would forget it, and end, and the settle
      // would hear "nothing sent" of a job that runs).
      const settling = await requesterOn(tq, 'settling', 'dataops.settleAsk');
      await pending(settling);
      assert.deepEqual(await ask([requesterOf(settling, 'ask-1')]), [true], 'a requester whose settle is pending asks');
      await settling.terminate('done');
    });
  });
});
