/**
 * The record an attempt leaves when it ends with nothing outstanding (write-once.ts `Refused`): the next attempt sends at
 * once, and only that one. A later attempt that started from it may have sent and died before its own record
 * reached Temporal (its waits beat the refusal again until then), so an attempt two after the refusal looks
 * for what was sent instead of sending again (applies, which send from their own attempts). Likewise, a retry that
 * cannot ask its submitter (Temporal down) fails without recording a refusal, rather than take "nothing" for an answer.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { activityFunctions } from '../../src/activities/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withFreshSimulator } from '../helpers/activities.js';
import { clientFor } from '../helpers/sim.js';
import { quiet } from '../helpers/mock-activity.js';

const TS = SEED_IDS.testSuites;
const UPSERT = { mode: 'apply', on_match: 'overwrite_unlocked', on_new: 'create', on_absence: 'do_nothing' } as const;

/** Runs `fn` as attempt `attempt` of an activity whose previous attempts left `heartbeatDetails`. */
function attemptOf<A extends unknown[], R>(
  attempt: number,
  heartbeatDetails: unknown,
  fn: (...args: A) => Promise<R>,
  ...args: A
): Promise<R> {
  const env = new MockActivityEnvironment({ attempt, heartbeatDetails }, quiet);
  return env.run<A, R, typeof fn>(fn, ...args);
}

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
  // Jobs and orders are sent by their target's submitter, whose records of each send decide what a retried batch may
  // send (send-in-turn.ts; holes 7 and 8); the requesting activity's own attempts send nothing. Applies still send
  // from their own attempts, and rely on this record.
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
      const order = { kitchen: 'production', recipe: 'load-warehouse', variation: 'daily', lock: 'dataops-order/x' };
      const out = await env.run(acts.runOrder, order).catch((e: unknown) => e);
      assert.ok(out instanceof ApplicationFailure && !out.nonRetryable, `a retryable failure: ${String(out)}`);
      assert.deepEqual(
        beats.filter((b) => (b as { phase?: string }).phase === 'rejected'),
        [],
        'no refusal recorded: the send before may have created the order',
      );
    });
  });

  test('an apply: an attempt two after the refusal re-previews, and finds that the one in between landed', async () => {
    await withFreshSimulator(async (sim) => {
      const acts = activityFunctions(await simDeps(sim, { submitSettleMs: 0 }));
      const exported = await attemptOf(1, undefined, acts.exportTestDefinitions, {
        testSuiteId: TS.salesDev,
        filters: { origin: 'both' },
      });
      const input = { testSuiteId: TS.salesProd, config: UPSERT, file: exported.file };
      const preview = await attemptOf(1, undefined, acts.importTestDefinitions, {
        ...input,
        config: { ...UPSERT, mode: 'preview' },
      });
      const expected = { summary: preview.summary, counts: preview.counts };
      const before = sim.controls.definitions(TS.salesProd).length;
      const other = await clientFor(sim);
      await other.testDefinitions.import(
        TS.salesProd,
        UPSERT,
        await other.testDefinitions.export(TS.salesDev, { origin: 'both' }),
      );
      const out = await attemptOf(3, { phase: 'rejected', expected, attempt: 1 }, acts.importTestDefinitions, {
        ...input,
        expected,
      });
      assert.equal(out.reconciled, true, 'found the apply in between by a fresh preview');
      assert.deepEqual(out.summary, preview.summary);
      assert.equal(sim.controls.definitions(TS.salesProd).length, before + preview.summary.created);
    });
  });
});
