/**
 * An ask of a target's submitter (src/exactly-once/through-submitter.ts), attempt by attempt: the first queues its
 * request and leaves its completion to the batch; a retry reads where its request stands and queues it again only
 * when its submitter does not know it and its workflow still wants it. Withdrawn, it says nothing was sent, so the
 * workflow looks nothing up.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@temporalio/client';
import { CancelledFailure, CompleteAsyncError } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { WITHDRAWN_UNSENT, type Place } from '../../src/exactly-once/messages.js';
import { throughSubmitter } from '../../src/exactly-once/through-submitter.js';
import { quiet, runIn } from '../helpers/mock-activity.js';

/** How attempt `attempt` of an ask ends where its submitter says `place` and its workflow is `cancelRequested`. */
async function askOn(attempt: number, place: Place, cancelRequested = false) {
  let queued = 0;
  const handle = {
    query: async () => place,
    describe: async () => ({ status: { name: 'RUNNING' }, raw: { workflowExtendedInfo: { cancelRequested } } }),
  };
  const client = {
    workflow: { signalWithStart: async () => (queued++, handle), getHandle: () => handle },
    withAbortSignal: <R>(_: AbortSignal, fn: () => R) => fn(),
  };
  const env = new MockActivityEnvironment(
    { attempt, startToCloseTimeoutMs: 60_000, scheduleToCloseTimeoutMs: 0 },
    { ...quiet, client: client as unknown as Client },
  );
  const ended = await runIn(env, () =>
    throughSubmitter({ id: 'dataops-submit/q/default/tests/ts', taskQueue: 'q' }, 'submitTestRun', {}, 60_000),
  ).catch((err: unknown) => err);
  return { ended, queued };
}

const asyncly = (r: { ended: unknown }) => r.ended instanceof CompleteAsyncError;
const withdrawnUnsent = (r: { ended: unknown }) =>
  r.ended instanceof CancelledFailure && r.ended.details.includes(WITHDRAWN_UNSENT);

test('a first attempt queues its request and is completed later, whatever the submitter holds', async () => {
  const first = await askOn(1, { result: { jobId: 'not read' } });
  assert.ok(asyncly(first), String(first.ended));
  assert.equal(first.queued, 1);
});

test('a retry takes the answer its request has, and queues nothing', async () => {
  const answered = await askOn(2, { result: { jobId: 'job-1' } });
  assert.deepEqual(answered, { ended: { jobId: 'job-1' }, queued: 0 });
  const failed = await askOn(2, { failure: { message: 'refused', type: 'Conflict', nonRetryable: true } });
  assert.match(String(failed.ended), /refused/);
  assert.equal(failed.queued, 0);
});

test('a retry whose request waits or is being sent waits again, without queueing it again', async () => {
  const waiting = await askOn(2, { queued: 3 });
  assert.ok(asyncly(waiting), String(waiting.ended));
  assert.equal(waiting.queued, 0);
});

test('a retry whose request the submitter does not know queues it again while its workflow wants it', async () => {
  const dropped = await askOn(2, { unknown: true });
  assert.ok(asyncly(dropped), String(dropped.ended));
  assert.equal(dropped.queued, 1);
  const cancelled = await askOn(2, { unknown: true }, true);
  assert.ok(withdrawnUnsent(cancelled), `its workflow was cancelled: ${String(cancelled.ended)}`);
  assert.equal(cancelled.queued, 0);
});

test('a withdrawn request says nothing was sent', async () => {
  const withdrawn = await askOn(2, { withdrawn: true });
  assert.ok(withdrawnUnsent(withdrawn), String(withdrawn.ended));
  assert.equal(withdrawn.queued, 0);
});
