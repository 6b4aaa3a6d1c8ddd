/**
 * The lookup of a test run whose ask ended unanswered, with no record of its send, looks from its workflow's start,
 * which it asks Temporal for. Cancelled while that call hangs (the server not answering), it ends cancelled: the
 * worker's connection (NativeConnection) takes no abort signal, so handing the call one left the lookup waiting.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { ActivityContext } from '../../src/activities/context.js';
import type { ServiceClient } from '../../src/api/index.js';
import { submitter } from '../../src/activities/submission.js';
import { endingOnceCancelled, quiet } from '../helpers/mock-activity.js';

// A hang guard, not a speed check: on the code before, the lookup never ended.
test('a lookup cancelled while its workflow’s start is asked for ends cancelled', { timeout: 60_000 }, async () => {
  let asked: () => void = () => undefined;
  const askedNow = new Promise<void>((resolve) => (asked = resolve));
  const handle = (id: string) => ({
    // The submitter is gone (it kept nothing); the workflow's own describe never answers.
    signal: async () => {
      throw new WorkflowNotFoundError('gone', id, undefined);
    },
    describe: () => (asked(), new Promise<never>(() => undefined)),
  });
  // As the worker's NativeConnection: a call given an abort signal goes on regardless.
  const client = { workflow: { getHandle: handle }, withAbortSignal: <R>(_: AbortSignal, fn: () => R) => fn() };
  const env = new MockActivityEnvironment(
    { workflowExecution: { workflowId: 'wf', runId: 'run' }, activityId: '7' },
    { ...quiet, client: client as unknown as Client },
  );
  const ctx = {
    profile: () => ({ client: {} as ServiceClient, projectCode: 'P', soleWriter: false }),
    clockSkewMs: 0,
    submitSettleMs: 1_000,
  } as unknown as ActivityContext;
  const input = { profile: 'default', targetId: 'suite', lock: 'dataops-submit/q/default/tests/suite' };
  const outcome = await endingOnceCancelled(
    env,
    () => submitter(ctx).findUnanswered('tests', input, '7', undefined),
    askedNow,
  );
  assert.ok(outcome instanceof CancelledFailure, `ended with ${String(outcome)}`);
});
