/**
 * Hole 8 of the explorer's issue: a submitter took a batch's record of a send (`sent`) from whichever attempt of the
 * batch reported it. An attempt that stalled past its heartbeat timeout (a frozen worker) could go on sending while
 * its retry, which had read the batch before that record, sent the same request too. Now a retry takes over by
 * update (`resume`) before it reads the batch, and every send asks first (`sending`): the submitter refuses an
 * earlier attempt's send once a later one has taken over. On main the submitter had no `resume`, and took the
 * stalled attempt's `sent` signal after the retry had read the batch: both sent.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { queueAt } from '../../src/exactly-once/through-submitter.js';
import { resumeUpdate, sendingUpdate, type WriteRequest } from '../../src/exactly-once/messages.js';
import { workflowsPath } from '../helpers/activities.js';
import { startDevServerEnv, withWorker, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

let t: TestEnv;
before(async () => {
  t = await startDevServerEnv();
});
after(async () => t?.env.teardown());

test("hole 8: once a retry of a batch has taken over, the stalled attempt's sends are refused", async () => {
  let batches = 0;
  let release = (): void => {};
  // The batch's activity stalls until the test is done: the test speaks for its attempts meanwhile.
  const sendInTurn = () => {
    batches++;
    return new Promise<[]>((resolve) => (release = () => resolve([])));
  };
  await withWorker(t.env, { workflowsPath, activities: { 'dataops.sendInTurn': sendInTurn } }, async (taskQueue) => {
    const id = `dataops-submit/${taskQueue}/default/profiling/tg-hole-8`;
    const request: WriteRequest = {
      id: 'wf/run/1',
      activity: 'submitProfilingRun',
      input: { profile: 'default', targetId: 'tg-hole-8' },
      outageToleranceMs: 600_000,
      askAgainUntil: Date.now() + 600_000,
    };
    await queueAt(t.env.client, { id, taskQueue }, request);
    await eventually('the batch began', () => batches === 1);
    const submitter = t.env.client.workflow.getHandle(id);
    const record = { sentAt: Date.now(), mark: null };
    const turns = await submitter.executeUpdate(resumeUpdate, { args: [{ batch: 1, attempt: 2 }] });
    assert.deepEqual(
      turns.map((r) => r.id),
      ['wf/run/1'],
      'the retry reads the batch: nothing sent yet',
    );
    const stalled = await submitter.executeUpdate(sendingUpdate, {
      args: [{ sending: ['wf/run/1', record], batch: 1, attempt: 1 }],
    });
    assert.equal(stalled, 'stale', 'the stalled attempt may not send it');
    const retry = await submitter.executeUpdate(sendingUpdate, {
      args: [{ sending: ['wf/run/1', record], batch: 1, attempt: 2 }],
    });
    assert.equal(retry, 'go', 'the retry sends it, once');
    await submitter.terminate('done');
    release();
  });
});
