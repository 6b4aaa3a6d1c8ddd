/**
 * What a target's submitter carries of its queue when it continues as new (src/exactly-once/workflow/submitter-keeps.ts): a
 * request never sent past the first CARRIED_AT_MOST is dropped (its requester queues it again), but not one that may
 * have been sent.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CARRIED_AT_MOST, carried, type Queued } from '../../src/exactly-once/workflow/submitter-keeps.js';

const request = (id: string, sent = false): Queued => ({
  id,
  activity: 'submitProfilingRun',
  input: {},
  outageToleranceMs: 60_000,
  askAgainUntil: 0,
  ...(sent ? { sending: { sentAt: 1, mark: null } } : {}),
});

describe("a submitter's queue carried across continue-as-new", () => {
  test('keeps the first never sent, and every one that may have been sent', () => {
    const first = Array.from({ length: CARRIED_AT_MOST }, (_, i) => request(`r${i}`));
    const beyond = [request('beyond-unsent'), request('beyond-sent', true), request('beyond-unsent-2')];
    const ids = carried([...first, ...beyond]).map((r) => r.id);
    assert.equal(ids.length, CARRIED_AT_MOST + 1);
    assert.deepEqual(
      ids.slice(0, CARRIED_AT_MOST),
      first.map((r) => r.id),
      'the first, in order',
    );
    assert.deepEqual(ids.slice(CARRIED_AT_MOST), ['beyond-sent'], 'the others dropped');
  });
});
