/**
 * The record an attempt leaves when it ends with nothing outstanding (write-once.ts `Refused`): the next attempt sends at
 * once, and only that one. A later attempt that started from it may have sent and died before its own record
 * reached Temporal (its waits beat the refusal again until then), so an attempt two after the refusal looks
 * for what was sent instead of sending again (a submitter's batch, which every write goes through). Likewise, a retry
 * that cannot ask its submitter (Temporal down) fails without recording a refusal, rather than take "nothing" for an
 * answer.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { activityFunctions } from '../../src/activities/index.js';
import { sendInTurnActivity } from '../../src/exactly-once/send-in-turn.js';
import type { Prior } from '../../src/exactly-once/index.js';
import { simDeps, withFreshSimulator } from '../helpers/activities.js';
import { quiet } from '../helpers/mock-activity.js';

/** A Temporal client that cannot reach its server: a submitter cannot be asked. */
const temporalDown = {
  withAbortSignal: <R>(_: AbortSignal, fn: () => R) => fn(),
  options: { namespace: 'default' },
  workflow: {
    executeUpdateWithStart: async () => {
      throw new Error('Temporal unavailable');
    },
    getHandle: () => ({ signal: async () => undefined }),
  },
};

/** The phase an order's first attempt recorded as it sent, before it died. */
const sentBefore = { phase: 'sending', sentAt: Date.now(), mark: [] };

describe('a refusal recorded by an attempt is trusted by the next attempt only', () => {
  // Every write is sent by its target's submitter, whose records of each send decide what a retried batch may send
  // (send-in-turn.ts; holes 7 and 8); the requesting activity's own attempts send nothing.
  test('an order retry whose submitter cannot be reached fails without recording a refusal: its predecessor may have sent', async () => {
    // The attempt before sent (its phase says so) and died. This one fails before its submitter answers (Temporal
    // is unreachable): it records nothing of its own (the submitter's records decide a retry), never a refusal that
    // would say nothing was sent.
    await withFreshSimulator(async (sim) => {
      const acts = activityFunctions(await simDeps(sim));
      const env = new MockActivityEnvironment({ attempt: 2, heartbeatTimeoutMs: 0, heartbeatDetails: sentBefore }, {
        ...quiet,
        client: temporalDown,
      } as never);
      const beats: unknown[] = [];
      env.on('heartbeat', (d: unknown) => beats.push(d));
      const order = { kitchen: 'production', recipe: 'load-warehouse', variation: 'daily' };
      const out = await env.run(acts.runOrder, order).catch((e: unknown) => e);
      assert.ok(out instanceof ApplicationFailure && !out.nonRetryable, `a retryable failure: ${String(out)}`);
      assert.deepEqual(
        beats.filter((b) => (b as { phase?: string }).phase === 'rejected'),
        [],
        'no refusal recorded: the send before may have created the order',
      );
    });
  });

  test("a batch's retry trusts the refusal its previous attempt recorded, and no older one: two attempts on, it looks", async () => {
    // The submitter recorded the request's send (a retry of the batch hears it in `resume`); the batch's heartbeat
    // holds a refusal recorded after it by attempt `by`. Only attempt by + 1 takes it for "nothing outstanding".
    const priorAt = async (attempt: number, by: number): Promise<Prior<unknown>> => {
      const sending = { sentAt: Date.now(), mark: null };
      const handle = {
        executeUpdate: async (update: { name: string }) =>
          update.name === 'resume' ? [{ id: 'a', input: {}, sending }] : 'go',
        signal: async () => undefined,
      };
      const client = {
        workflow: { getHandle: () => handle },
        withAbortSignal: <R>(_: AbortSignal, fn: () => R) => fn(),
      };
      const env = new MockActivityEnvironment(
        { attempt, heartbeatDetails: { a: { phase: 'rejected', attempt: by } }, heartbeatTimeoutMs: 0 },
        { ...quiet, client: client as never },
      );
      let seen: Prior<unknown> | undefined;
      const sendInTurn = sendInTurnActivity({ x: { send: async (_, turn) => ((seen = turn.prior), { jobId: 'j' }) } });
      const input = {
        activity: 'x',
        requests: [{ id: 'a', input: {} }],
        submitterId: 's',
        submitterRunId: 'r',
        batch: 1,
      };
      await env.run(sendInTurn, input);
      return seen!;
    };
    assert.deepEqual(await priorAt(2, 1), { mayHaveSent: false }, 'the attempt just after the refusal sends at once');
    const later = await priorAt(3, 1);
    assert.equal(later.mayHaveSent, true, 'attempt 2 may have sent after that refusal, and died before its own record');
  });
});
