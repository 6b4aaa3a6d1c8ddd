/**
 * A batch whose submitter cannot answer its record of a send (the submitter's workflow task cannot run: the workers,
 * this one with them, are shutting down) ends when the batch is cancelled, nothing sent. The worker's connection
 * (NativeConnection) takes no abort signal, so giving one to the client's call was not enough: a worker shutting down
 * waited on that update for ever and never exited (found as the demo under `--keep`, stopped with Ctrl+C, that hung).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { sendInTurnActivity } from '../../src/exactly-once/send-in-turn.js';
import { endingOnceCancelled, quiet } from '../helpers/mock-activity.js';

// A hang guard, not a speed check: on the code before, the batch never ended.
test(
  'a batch cancelled while its submitter cannot answer its record ends cancelled, nothing sent',
  { timeout: 60_000 },
  async () => {
    let asked: () => void = () => undefined;
    const askedNow = new Promise<void>((resolve) => (asked = resolve));
    const handle = {
      // The submitter's workflow task never runs: the update is never answered.
      executeUpdate: () => (asked(), new Promise<never>(() => undefined)),
      signal: async () => undefined,
    };
    // As the worker's NativeConnection: a call given an abort signal goes on regardless.
    const client = { workflow: { getHandle: () => handle }, withAbortSignal: <R>(_: AbortSignal, fn: () => R) => fn() };
    const env = new MockActivityEnvironment(
      { heartbeatTimeoutMs: 20_000, startToCloseTimeoutMs: 30 * 60_000, scheduleToCloseTimeoutMs: 0 },
      { ...quiet, client: client as unknown as Client },
    );
    let sent = false;
    const sendInTurn = sendInTurnActivity({
      x: {
        send: async (_, turn) => {
          await turn.record({ phase: 'sending', sentAt: Date.now(), mark: null });
          sent = true;
          return { jobId: 'job' };
        },
      },
    });
    const input = {
      activity: 'x',
      requests: [{ id: 'a', input: {} }],
      submitterId: 'dataops-submit/q/default/profiling/tg',
      submitterRunId: 'run',
    };
    const outcome = await endingOnceCancelled(env, () => sendInTurn(input), askedNow);
    assert.ok(outcome instanceof CancelledFailure, `ended with ${String(outcome)}`);
    assert.equal(sent, false, 'nothing sent without the submitter’s record');
  },
);
