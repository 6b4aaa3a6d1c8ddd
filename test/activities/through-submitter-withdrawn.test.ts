/**
 * An ask whose request was withdrawn unsent says so on a first attempt only: on a later one, the workflow asks the
 * submitter for what the earlier attempts' request got (a worker from before the one path may have sent a test run
 * itself), at the cost of one lookup.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { WITHDRAWN_UNSENT } from '../../src/exactly-once/messages.js';
import { throughSubmitter } from '../../src/exactly-once/through-submitter.js';
import { quiet, runIn } from '../helpers/mock-activity.js';

/** The ask of attempt `attempt`, cancelled at once; its submitter answers that the request was withdrawn. */
async function withdrawnOn(attempt: number): Promise<unknown> {
  const handle = { query: async () => ({ withdrawn: true }), signal: async () => undefined };
  const client = {
    workflow: { signalWithStart: async () => handle, getHandle: () => handle },
    withAbortSignal: <R>(_: AbortSignal, fn: () => R) => fn(),
  };
  const env = new MockActivityEnvironment(
    { attempt, heartbeatTimeoutMs: 20_000, startToCloseTimeoutMs: 60_000, scheduleToCloseTimeoutMs: 0 },
    { ...quiet, client: client as unknown as Client },
  );
  const asked = runIn(env, () =>
    throughSubmitter(
      { id: 'dataops-submit/q/default/tests/ts', taskQueue: 'q' },
      'submitTestRun',
      {},
      60_000,
      env.context.cancellationSignal,
    ),
  ).catch((err: unknown) => err);
  env.cancel();
  return asked;
}

test('a first attempt’s withdrawn ask says nothing was sent; a later attempt’s does not', async () => {
  const first = await withdrawnOn(1);
  assert.ok(first instanceof CancelledFailure, String(first));
  assert.deepEqual(first.details, [WITHDRAWN_UNSENT]);
  const later = await withdrawnOn(2);
  assert.ok(later instanceof CancelledFailure, String(later));
  assert.deepEqual(later.details, []);
});
