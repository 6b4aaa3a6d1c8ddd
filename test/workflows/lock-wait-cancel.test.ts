/**
 * A workflow cancelled while its submission waits for a target another submission holds ends cancelled at once and
 * creates nothing, whichever wait strategy it uses. Before, the path of the submission activity (the deferrable
 * strategy, or `statusReports: 0`) waited for the lock inside a non-cancellable scope, then created a job only to
 * cancel it. And waiters that found the target held together ask again at different moments.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CancelledFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { progressQuery } from '../../src/contract/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;
const SLOW = { pendingMs: 600_000, claimMs: 600_000, runMs: 6_000_000, cancelMs: 200, interruptMs: 200 };

describe('a cancel while the submission waits for a held target', () => {
  const s = devServerAndSimulator({ jobDurations: SLOW });
  /** The service holds the next profiling submission to `target` for `ms`: its sender holds the target's lock. */
  const holdProfiling = (target: string, ms: number) =>
    s.sim.controls.addFault({
      kind: 'delay',
      delay_ms: ms,
      method: 'POST',
      path: `/table-groups/${target}/profiling-runs`,
    });

  for (const [strategy, extra] of [
    ['deferrable', { waitStrategy: 'deferrable' }],
    ['heartbeat', { waitStrategy: 'heartbeat' }],
  ] as const)
    test(`${strategy}: ends cancelled and creates nothing`, async () => {
      const target = strategy === 'deferrable' ? TG.finance : TG.sales;
      const profiling = () =>
        s.sim.controls.jobs().filter((j) => j.job_key === 'run-profile' && j.table_group_id === target);
      const before = profiling().length;
      // The first workflow's submission is held by the service: it holds the target's lock meanwhile.
      const held = holdProfiling(target, 8_000);
      await withProjectWorker(s.d.env, await simDeps(s.sim, { submitSettleMs: 20_000 }), async (taskQueue) => {
        const args = { tableGroupId: target, pollIntervalMs: 200, maxPollIntervalMs: 200, ...extra };
        const first = await s.d.env.client.workflow.start('dataops.profileTableGroup', {
          taskQueue,
          workflowId: `lock-first-${strategy}-${taskQueue}`,
          args: [args],
        });
        await eventually(
          'the first submission held',
          () => s.sim.controls.faults().find((f) => f.id === held.id)?.hits === 1,
        );
        const second = await s.d.env.client.workflow.start('dataops.profileTableGroup', {
          taskQueue,
          workflowId: `lock-second-${strategy}-${taskQueue}`,
          args: [args],
        });
        await eventually('the second waiting for the lock', async () =>
          (await second.query(progressQuery)).stage.startsWith('waiting for another'),
        );
        await second.cancel();
        const err = await second.result().catch((e: unknown) => e);
        assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure, String(err));
        const ended = profiling().length;
        await first.cancel();
        await first.result().catch(() => undefined);
        assert.equal(ended - before, 0, 'the second created nothing before it ended (the first is still held)');
        assert.equal(profiling().length - before, 1, "only the first workflow's job");
      });
    });

  test('waiters that found the target held together ask again at different moments (jittered backoff)', async () => {
    const target = TG.other;
    const held = holdProfiling(target, 15_000);
    await withProjectWorker(s.d.env, await simDeps(s.sim, { submitSettleMs: 20_000 }), async (taskQueue) => {
      const args = { tableGroupId: target, waitStrategy: 'deferrable' };
      const start = (name: string) =>
        s.d.env.client.workflow.start('dataops.profileTableGroup', {
          taskQueue,
          workflowId: `jitter-${name}-${taskQueue}`,
          args: [args],
        });
      const first = await start('holder');
      await eventually('the holder held', () => s.sim.controls.faults().find((f) => f.id === held.id)?.hits === 1);
      const waiters = await Promise.all(['a', 'b', 'c'].map(start));
      // Each waiter's first two waits: the backoff's steps (0.5 s, 1 s), each a quarter to all of its step.
      const waits = async (h: WorkflowHandle): Promise<number[]> =>
        ((await h.fetchHistory()).events ?? []).flatMap((e) => {
          const d = e.timerStartedEventAttributes?.startToFireTimeout;
          return d ? [Number(d.seconds ?? 0) * 1000 + Math.round((d.nanos ?? 0) / 1e6)] : [];
        });
      const seen = await eventually('two waits of each waiter', async () => {
        const all = await Promise.all(waiters.map(waits));
        return all.every((w) => w.length >= 2) ? all.map((w) => w.slice(0, 2)) : undefined;
      });
      for (const [w1, w2] of seen) {
        assert.ok(w1! >= 125 && w1! <= 500, `first wait ${w1} ms, of a 500 ms step`);
        assert.ok(w2! >= 250 && w2! <= 1_000, `second wait ${w2} ms, of a 1 s step`);
      }
      assert.ok(new Set(seen.map((w) => w.join())).size > 1, `every waiter waited alike: ${JSON.stringify(seen)}`);
      await Promise.all([...waiters, first].map((h) => h.cancel()));
      await Promise.all([...waiters, first].map((h) => h.result().catch(() => undefined)));
    });
  });
});
