/**
 * A workflow cancelled while its request waits its turn at its target's submitter settles that request at once
 * (withdrawn: never sent) and ends cancelled, without waiting for the activity that asked to hear of the cancel at its
 * next heartbeat (an ask's comes up to 16 s apart, a wait's up to its heartbeat timeout): its history closes with that
 * activity still open. Profiling runs asked by a submission activity (either wait strategy), and orders.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { requestsQuery, type WriteRequest } from '../../src/exactly-once/messages.js';
import { progressQuery } from '../../src/contract/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { withProjectWorker } from '../helpers/activities.js';
import { activitiesInFlight } from '../helpers/activity-events.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { HOLD_AT_MOST_MS, faultHits, orderSubmitterAt, submitterAt } from '../helpers/sim.js';
import { ASKED_ORDER, SLOW_JOBS, askSubmitter, deps, orderAsked, profilingRequesters } from '../helpers/submitter.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;

describe('a workflow cancelled while its request waits its turn', () => {
  const s = devServerAndSimulator({ jobDurations: SLOW_JOBS });
  const profiling = (target: string) =>
    s.sim.controls
      .jobs()
      .filter((j) => j.job_key === 'run-profile' && j.table_group_id === target)
      .map((j) => j.id);

  /** The activity that settles an ask's request, whatever its kind. */
  const SETTLE = 'dataops.settleAsk';
  const profilingCase = (target: string, waitStrategy: 'heartbeat' | 'deferrable') => ({
    target,
    submitter: (taskQueue: string) => submitterAt(s.sim.url, taskQueue, 'profiling', target),
    request: (r: WriteRequest) => r,
    hold: () =>
      s.sim.controls.addFault({
        kind: 'delay',
        delay_ms: HOLD_AT_MOST_MS,
        method: 'POST',
        path: `/table-groups/${target}/profiling-runs`,
      }),
    created: () => profiling(target),
    workflow: ['dataops.profileTableGroup', { tableGroupId: target, waitStrategy, pollIntervalMs: 200 }] as const,
  });
  const cases = {
    'profiling, asked by its submission activity (deferrable)': profilingCase(TG.salesDev, 'deferrable'),
    'profiling, asked by its submission activity (heartbeat)': profilingCase(TG.sales, 'heartbeat'),
    order: {
      target: TG.finance, // the requester holding the submitter is a profiling workflow; its request is an order's
      submitter: (taskQueue: string) => orderSubmitterAt(s.sim.url, taskQueue, ASKED_ORDER),
      ...orderAsked(s),
      workflow: ['dataops.runOrder', { ...ASKED_ORDER, wait: false }] as const,
    },
  };

  for (const [name, c] of Object.entries(cases))
    test(`${name}: withdrawn at once, the workflow ends cancelled without waiting for its ask`, async () => {
      await withProjectWorker(s.d.env, await deps(s), async (taskQueue) => {
        const client = s.d.env.client;
        const submitter = client.workflow.getHandle(c.submitter(taskQueue));
        // A request ahead of it, from a workflow on a queue nobody polls, its send held: the workflow's waits its turn.
        const { requesters, requests } = await profilingRequesters(client, taskQueue, c.target, 1, 'settle-first');
        const before = new Set(c.created());
        const held = c.hold();
        const first = askSubmitter(client, taskQueue, submitter.workflowId, c.request(requests[0]!));
        try {
          await eventually('the first send held', () => faultHits(s.sim, held) === 1);
          const [type, input] = c.workflow;
          const h = await client.workflow.start(type, {
            taskQueue,
            workflowId: `settle-${type}-${taskQueue}`,
            args: [input],
          });
          await eventually(
            'its request queued behind the held one',
            async () => (await submitter.query(requestsQuery)).queued.length === 1,
          );
          await h.cancel();
          const err = await h.result().catch((e: unknown) => e);
          assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure, String(err));
          const events = (await h.fetchHistory()).events ?? [];
          const scheduled = events.flatMap((e) => {
            const a = e.activityTaskScheduledEventAttributes;
            const heartbeatS = Number(a?.heartbeatTimeout?.seconds ?? Infinity);
            return a ? [{ id: a.activityId ?? '', type: a.activityType?.name ?? '', heartbeatS }] : [];
          });
          const ask = scheduled.find((a) => a.id.startsWith('ask-'));
          assert.ok(ask, `its ask has an id of its own: ${JSON.stringify(scheduled)}`);
          // Nothing in flight when it closed: its settle ended its ask (cancelled, withdrawn unsent) before it ended.
          assert.deepEqual(activitiesInFlight(events), [], 'its ask ended by its settle');
          assert.ok(
            scheduled.some((a) => a.type === SETTLE),
            `its request settled: ${scheduled.map((a) => a.type).join(', ')}`,
          );
          // A settle whose worker dies is tried again seconds later, not after 20 s (the short calls' timeout).
          for (const a of scheduled.filter((x) => x.type === SETTLE))
            assert.ok(a.heartbeatS <= 5, `the settle's heartbeat timeout is ${a.heartbeatS} s`);
          assert.deepEqual(await submitter.query(requestsQuery), { sending: [requests[0]!.id], queued: [] });
        } finally {
          s.sim.controls.releaseFault(held.id);
        }
        const answer = await first;
        assert.ok('result' in answer, `the held request answered: ${JSON.stringify(answer)}`);
        await eventually('the submitter holds nothing', async () => {
          const { sending, queued } = await submitter.query(requestsQuery);
          return sending.length === 0 && queued.length === 0;
        });
        assert.equal(c.created().filter((id) => !before.has(id)).length, 1, "one created: the held request's");
        await Promise.all(requesters.map((w) => w.terminate('done').catch(() => {})));
      });
    });

  test('in a batch, behind a held send: told withdrawn at once, it ends before that send is answered', async () => {
    const c = profilingCase(TG.salesDev, 'deferrable');
    await withProjectWorker(s.d.env, await deps(s), async (taskQueue) => {
      const client = s.d.env.client;
      const submitter = client.workflow.getHandle(c.submitter(taskQueue));
      const queued = async () => (await submitter.query(requestsQuery)).queued.length;
      const { requesters, requests } = await profilingRequesters(client, taskQueue, c.target, 1, 'settle-batch');
      const before = new Set(c.created());
      const holds = [c.hold()];
      const first = askSubmitter(client, taskQueue, submitter.workflowId, requests[0]!);
      const [type, input] = c.workflow;
      const start = (name: string) =>
        client.workflow.start(type, { taskQueue, workflowId: `settle-batch-${name}-${taskQueue}`, args: [input] });
      let second: Awaited<ReturnType<typeof start>> | undefined;
      try {
        // Two workflows queue behind the first's held send, then go in one batch (a batch takes requests alike), the
        // first one's send held in turn: the other's request is in that batch, its turn after a held send.
        await eventually('the first send held', () => faultHits(s.sim, holds[0]!) === 1);
        second = await start('second');
        await eventually('the second queued', async () => (await queued()) === 1);
        const h = await start('victim');
        await eventually('its request queued behind them', async () => (await queued()) === 2);
        holds.push(c.hold());
        s.sim.controls.releaseFault(holds[0]!.id);
        await eventually('the second send held, its request in the batch', async () => {
          const { sending } = await submitter.query(requestsQuery);
          return faultHits(s.sim, holds[1]!) === 1 && sending.some((id) => id.startsWith(`${h.workflowId}/`));
        });
        await h.cancel();
        const err = await h.result().catch((e: unknown) => e);
        assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure, String(err));
        assert.equal(c.created().filter((id) => !before.has(id)).length, 1, 'ended while the second send was held');
      } finally {
        for (const held of holds) s.sim.controls.releaseFault(held.id);
      }
      assert.ok('result' in (await first), 'the first request answered');
      await eventually(
        'the second workflow has its job',
        async () => (await second.query(progressQuery)).jobs.length === 1,
      );
      await second.cancel();
      await second.result().catch(() => undefined);
      await eventually('the submitter holds nothing', async () => {
        const { sending } = await submitter.query(requestsQuery);
        return sending.length === 0 && (await queued()) === 0;
      });
      assert.equal(c.created().filter((id) => !before.has(id)).length, 2, 'its request never sent');
      await Promise.all(requesters.map((w) => w.terminate('done').catch(() => {})));
    });
  });
});
