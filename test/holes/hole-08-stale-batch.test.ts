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
import { resumeUpdate, sendingUpdate } from '../../src/exactly-once/messages.js';
import { withStalledBatch } from '../helpers/submitter.js';
import { startDevServerEnv, type TestEnv } from '../helpers/temporal.js';

let t: TestEnv;
before(async () => {
  t = await startDevServerEnv();
});
after(async () => t?.env.teardown());

test("hole 8: once a retry of a batch has taken over, the stalled attempt's sends are refused", async () => {
  await withStalledBatch(t.env, 'tg-hole-8', async (submitter) => {
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
  });
});
