/**
 * A workflow cancelled while its submission waits its turn at the target's submitter (another submission is being
 * sent) ends cancelled at once and creates nothing, whichever wait strategy it uses: its request is withdrawn. And a
 * burst of submissions to one target is sent in the order asked, each asked once, none asking again.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CancelledFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { requestsQuery } from '../../src/exactly-once/messages.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { eventually } from '../helpers/wait.js';
import { faultHits, submitterAt } from '../helpers/sim.js';

const TG = SEED_IDS.tableGroups;
const SLOW = { pendingMs: 600_000, claimMs: 600_000, runMs: 6_000_000, cancelMs: 200, interruptMs: 200 };

describe('a submission waiting its turn at its target', () => {
  const s = devServerAndSimulator({ jobDurations: SLOW });
  /** The service holds the next profiling submission to `target` for `ms`: the target's submitter is busy with it. */
  const holdProfiling = (target: string, ms: number) =>
    s.sim.controls.addFault({
      kind: 'delay',
      delay_ms: ms,
      method: 'POST',
      path: `/table-groups/${target}/profiling-runs`,
    });

  const submitter = (taskQueue: string, target: string) =>
    s.d.env.client.workflow.getHandle(submitterAt(s.sim.url, taskQueue, 'profiling', target));
  /** Whether `h`'s request waits its turn at the target's submitter. */
  const queued = async (taskQueue: string, target: string, h: WorkflowHandle): Promise<boolean> =>
    (
      await submitter(taskQueue, target)
        .query(requestsQuery)
        .catch(() => ({ queued: [] as string[] }))
    ).queued.some((id) => id.startsWith(`${h.workflowId}/`));

  // Asked to leave its job running (cancelRemoteJob false), a workflow whose request still waits its turn has no job
  // to leave: it ends at once, and its request is not sent in its turn (exactly-once/leave-on-cancel.test.ts).
  for (const [strategy, extra, target] of [
    ['deferrable', { waitStrategy: 'deferrable' }, TG.finance],
    ['heartbeat', { waitStrategy: 'heartbeat' }, TG.sales],
    ['heartbeat, cancelRemoteJob false', { waitStrategy: 'heartbeat', cancelRemoteJob: false }, TG.finance],
  ] as const)
    test(`${strategy}: ends cancelled and creates nothing`, async () => {
      const profiling = () =>
        s.sim.controls.jobs().filter((j) => j.job_key === 'run-profile' && j.table_group_id === target);
      const before = profiling().length;
      // The first workflow's submission is held by the service: the second's waits its turn behind it.
      const held = holdProfiling(target, 8_000);
      await withProjectWorker(s.d.env, await simDeps(s.sim, { submitSettleMs: 20_000 }), async (taskQueue) => {
        const args = { tableGroupId: target, pollIntervalMs: 200, maxPollIntervalMs: 200, ...extra };
        const first = await s.d.env.client.workflow.start('dataops.profileTableGroup', {
          taskQueue,
          workflowId: `lock-first-${strategy.replace(/\W+/g, '-')}-${taskQueue}`,
          args: [args],
        });
        await eventually('the first submission held', () => faultHits(s.sim, held) === 1);
        const second = await s.d.env.client.workflow.start('dataops.profileTableGroup', {
          taskQueue,
          workflowId: `lock-second-${strategy.replace(/\W+/g, '-')}-${taskQueue}`,
          args: [args],
        });
        await eventually('the second queued behind the first', async () => queued(taskQueue, target, second));
        await second.cancel();
        const err = await second.result().catch((e: unknown) => e);
        assert.ok(
          err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure,
          `${String(err)}: ${String((err as Error).cause)} ${String(((err as Error).cause as Error | undefined)?.cause)}`,
        );
        const ended = profiling().length;
        await first.cancel();
        await first.result().catch(() => undefined);
        // Left by a workflow that does not wait for it (cancelRemoteJob false), a request is still answered in its turn.
        await eventually('the submitter holds nothing', async () => {
          const { sending, queued } = await submitter(taskQueue, target).query(requestsQuery);
          return sending.length === 0 && queued.length === 0;
        });
        assert.equal(ended - before, 0, 'the second created nothing before it ended (the first is still held)');
        assert.equal(profiling().length - before, 1, "only the first workflow's job");
      });
    });

  test('a burst on one target is sent in the order asked, each submission asked once', async () => {
    const target = TG.salesDev;
    const held = holdProfiling(target, 10_000);
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const args = { tableGroupId: target, waitStrategy: 'deferrable', pollIntervalMs: 200, maxPollIntervalMs: 200 };
      const start = (name: string) =>
        s.d.env.client.workflow.start('dataops.profileTableGroup', {
          taskQueue,
          workflowId: `burst-${name}-${taskQueue}`,
          args: [args],
        });
      const first = await start('holder');
      await eventually('the holder held', () => faultHits(s.sim, held) === 1);
      const waiters: WorkflowHandle[] = [];
      for (const name of ['a', 'b', 'c']) {
        const w = await start(name);
        await eventually(`${name} queued`, async () => queued(taskQueue, target, w));
        waiters.push(w);
      }
      const order = (await submitter(taskQueue, target).query(requestsQuery)).queued.map((id) => id.split('/')[0]);
      assert.deepEqual(
        order,
        waiters.map((w) => w.workflowId),
        'queued in the order asked',
      );
      const profiling = () =>
        s.sim.controls.jobs().filter((j) => j.job_key === 'run-profile' && j.table_group_id === target);
      const before = profiling().length;
      await eventually('the three sent after the first', () => profiling().length - before >= 3);
      await Promise.all([first, ...waiters].map((h) => h.cancel()));
      await Promise.all([first, ...waiters].map((h) => h.result().catch(() => undefined)));
      for (const h of [first, ...waiters]) {
        const events = (await h.fetchHistory()).events ?? [];
        const asked = events.filter(
          (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'dataops.submitProfilingRun',
        );
        const timers = events.filter((e) => e.timerStartedEventAttributes);
        assert.equal(asked.length, 1, `${h.workflowId} asked once`);
        assert.equal(timers.length, 0, `${h.workflowId} never waited to ask again`);
      }
    });
  });
});
