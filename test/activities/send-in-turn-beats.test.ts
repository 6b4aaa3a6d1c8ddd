/**
 * What a submitter's batch (src/exactly-once/send-in-turn.ts) heartbeats: a send is recorded at the submitter (its `sending`
 * update) before it leaves, and costs no heartbeat of its own (the next beat while it waits carries it); a refusal,
 * which only the heartbeat keeps for the next attempt, is heartbeated at once. Each heartbeat that reaches Temporal is
 * a billed action (docs/benchmarks.md).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { heartbeating } from '../../src/activities/heartbeats.js';
import { sendInTurnActivity, type SendFor } from '../../src/exactly-once/send-in-turn.js';
import { quiet, runIn, signalTaker } from '../helpers/mock-activity.js';

/** Runs a batch of `ids` sent with `send`, as the worker runs it (its requests beating): the heartbeats sent. */
async function batch(ids: string[], send: SendFor): Promise<{ beats: unknown[]; signals: unknown[]; result: unknown }> {
  const { client, signals } = signalTaker();
  const env = new MockActivityEnvironment(
    {
      heartbeatTimeoutMs: 20_000,
      startToCloseTimeoutMs: 30 * 60_000,
      scheduleToCloseTimeoutMs: 0,
      currentAttemptScheduledTimestampMs: Date.now(),
    },
    { ...quiet, client },
  );
  const beats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => beats.push(d));
  const sendInTurn = sendInTurnActivity({ x: { send } });
  const input = {
    activity: 'x',
    requests: ids.map((id) => ({ id, input: {} })),
    submitterId: 'dataops-submit/q/default/profiling/tg',
    submitterRunId: 'run',
  };
  const result = await runIn(env, () => heartbeating(() => sendInTurn(input))).catch((err: unknown) => err);
  return { beats, signals, result };
}

test('a send recorded at the submitter costs no heartbeat of its own', async () => {
  const { beats, signals, result } = await batch(['a', 'b'], async (_, turn) => {
    await turn.record({ phase: 'sending', sentAt: Date.now(), mark: null });
    return { jobId: 'job' };
  });
  assert.equal(signals.length, 3, `each send recorded before it left, the last answer at the end: ${String(result)}`);
  assert.deepEqual(signals.at(-1), { answered: [['b', { result: { jobId: 'job' } }]] });
  assert.equal((result as unknown[]).length, 2, JSON.stringify(result));
  assert.deepEqual(beats, [], 'no heartbeat: the next beat while it waits carries the records');
});

test('a refusal is heartbeated at once, for the next attempt to send at once', async () => {
  const { beats, signals, result } = await batch(['a'], async (_, turn) => {
    await turn.record({ phase: 'rejected', attempt: 1 });
    throw new Error('connection refused');
  });
  assert.ok(result instanceof ApplicationFailure, String(result));
  assert.equal(signals.length, 0, 'nothing sent, nothing recorded at the submitter');
  assert.deepEqual(beats, [{ a: { phase: 'rejected', attempt: 1 } }]);
});
