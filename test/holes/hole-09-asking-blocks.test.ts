/**
 * Hole 9 of the explorer's issue: while a submitter asked whether its requesters still ask (`stillAsking`, a describe
 * per requester, retried through a service outage for hours), no queued request was sent: a request that came in
 * meanwhile waited for the question's answer. The question now runs beside the queue, and a request is sent at once.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { queueAt } from '../../src/exactly-once/through-submitter.js';
import type { WriteRequest } from '../../src/exactly-once/messages.js';
import { workflowsPath } from '../helpers/activities.js';
import { startDevServerEnv, withWorker, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

let t: TestEnv;
before(async () => {
  t = await startDevServerEnv();
});
after(async () => t?.env.teardown());

const request = (id: string): WriteRequest => ({
  id,
  activity: 'submitProfilingRun',
  input: { profile: 'default', targetId: 'tg-hole-9', requester: { workflowId: id, runId: 'r', activityId: '1' } },
  outageToleranceMs: 600_000,
  askAgainUntil: Date.now() + 600_000,
});

test('hole 9: a request that comes while the submitter asks about its answers is sent without waiting for it', async () => {
  const sent: string[] = [];
  let asked = 0;
  let answerQuestion = (): void => {};
  const activities = {
    // Each batch answers at once; the question hangs until the test answers it (an outage would hold it for hours).
    'dataops.sendInTurn': async (input: { requests: { id: string }[] }) =>
      input.requests.map((r) => (sent.push(r.id), [r.id, { result: { jobId: `job-${r.id}` } }])),
    'dataops.stillAsking': (requesters: unknown[]) => {
      asked++;
      return new Promise<boolean[]>((resolve) => (answerQuestion = () => resolve(requesters.map(() => true))));
    },
  };
  await withWorker(t.env, { workflowsPath, activities }, async (taskQueue) => {
    const id = `dataops-submit/${taskQueue}/default/profiling/tg-hole-9`;
    await queueAt(t.env.client, { id, taskQueue }, request('first'));
    await eventually('the first sent', () => sent.length === 1);
    // Idle a minute with an answer to keep: the submitter asks whether its requester still asks.
    await eventually('the question asked', () => asked === 1, { tries: 1_000, delayMs: 100 });
    await queueAt(t.env.client, { id, taskQueue }, request('second'));
    try {
      await eventually('the second sent while the question hangs', () => sent.length === 2, {
        tries: 100,
        delayMs: 100,
      });
    } finally {
      answerQuestion();
    }
    assert.deepEqual(sent, ['first', 'second']);
    await t.env.client.workflow.getHandle(id).terminate('done');
  });
});
