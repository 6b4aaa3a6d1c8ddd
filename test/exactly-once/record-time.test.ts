/**
 * A send's record, as a retry of its batch reads it back (`resume`), says when the submitter made it, not when the
 * batch stamped it before asking: the send leaves only once its record is made, so a retry's lookup waits out the
 * settle window from there. A record that took seconds (a busy submitter) otherwise ended the window before a held
 * request could commit, and the retry sent it again (explorer seed 45903, in its first attempt's own lookup).
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

test('a retried batch reads a send as made when its record was, not when the batch stamped it', async () => {
  await withStalledBatch(t.env, 'tg-record-time', async (submitter) => {
    // Stamped a minute before its record is made.
    const stamped = { sentAt: Date.now() - 60_000, mark: 'the mark' };
    const asked = Date.now();
    const verdict = await submitter.executeUpdate(sendingUpdate, {
      args: [{ sending: ['wf/run/1', stamped], batch: 1, attempt: 1 }],
    });
    assert.equal(verdict, 'go');
    const [turn] = await submitter.executeUpdate(resumeUpdate, { args: [{ batch: 1, attempt: 2 }] });
    assert.equal(turn?.sending?.mark, 'the mark', 'the mark as the batch took it');
    assert.ok((turn?.sending?.sentAt ?? 0) >= asked, 'sent, at the earliest, when the submitter made the record');
  });
});
