/**
 * An ask whose request was withdrawn unsent says so, on any attempt: every attempt asks under the same request, which
 * nothing sent, so the workflow looks nothing up.
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

test('a withdrawn ask says nothing was sent, on its first attempt and on a later one', async () => {
  for (const attempt of [1, 2]) {
    const withdrawn = await withdrawnOn(attempt);
    assert.ok(withdrawn instanceof CancelledFailure, String(withdrawn));
    assert.deepEqual(withdrawn.details, [WITHDRAWN_UNSENT], `attempt ${attempt}`);
  }
});
