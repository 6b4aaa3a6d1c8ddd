/**
 * A request is not sent in its turn once its workflow is cancelled or gone. A workflow that leaves its job alone when
 * cancelled (`cancelRemoteJob: false`) therefore ends at once on its cancel, without waiting for its submission: what
 * a send already in flight creates is left running (`leaveOnCancel`), not undone, when the workflow ended cancelled.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { requestsQuery, type WriteRequest } from '../../src/exactly-once/messages.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { withProjectWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { HOLD_AT_MOST_MS, faultHits, submitterAt } from '../helpers/sim.js';
import { ASKED_ORDER, SLOW_JOBS, askSubmitter, deps, orderAsked, profilingRequesters } from '../helpers/submitter.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;

describe('a submission whose workflow is cancelled', () => {
  const s = devServerAndSimulator({ jobDurations: SLOW_JOBS });
  const profiling = (target: string) =>
    s.sim.controls.jobs().filter((j) => j.job_key === 'run-profile' && j.table_group_id === target);
  const hold = (target: string) =>
    s.sim.controls.addFault({
      kind: 'delay',
      delay_ms: HOLD_AT_MOST_MS,
      method: 'POST',
      path: `/table-groups/${target}/profiling-runs`,
    });

  /** What the test below asks for: a profiling run, or an order; how its send is held, and what it created. */
  const kinds = {
    profiling: {
      target: TG.salesDev,
      request: (r: WriteRequest): WriteRequest => r,
      hold: () => hold(TG.salesDev),
      created: () => profiling(TG.salesDev).map((j) => j.id),
    },
    order: { target: `${ASKED_ORDER.recipe}/${ASKED_ORDER.variation}`, ...orderAsked(s) },
  };

  for (const [kind, k] of Object.entries(kinds))
    test(`${kind}: a request is not sent at its turn once its workflow is cancelled or gone`, async () => {
      await withProjectWorker(s.d.env, await deps(s), async (taskQueue) => {
        const submitterId = `dataops-submit/${taskQueue}/leave/${kind}/${k.target}`;
        const client = s.d.env.client;
        // Requesters on a queue nobody polls: a cancel of one is requested, never carried out (it stays running), as
        // for a workflow whose ask has not heard of its cancel yet.
        const { requesters, requests } = await profilingRequesters(client, taskQueue, TG.salesDev, 4, `${kind}-r`);
        const [first, cancelling, leaving, gone] = requests
          .map(k.request)
          .map((r, i) => (i === 2 ? { ...r, input: { ...r.input, leaveOnCancel: true } } : r)) as [
          WriteRequest,
          WriteRequest,
          WriteRequest,
          WriteRequest,
        ];
        const before = new Set(k.created());
        const held = k.hold();
        const answers = [askSubmitter(client, taskQueue, submitterId, first)];
        try {
          await eventually('the first send held', () => faultHits(s.sim, held) === 1);
          answers.push(...[cancelling, leaving, gone].map((r) => askSubmitter(client, taskQueue, submitterId, r)));
          await eventually(
            'three queued behind it',
            async () => (await client.workflow.getHandle(submitterId).query(requestsQuery)).queued.length === 3,
          );
          await requesters[1]!.cancel();
          await requesters[2]!.cancel();
          await requesters[3]!.terminate('gone before its turn');
        } finally {
          s.sim.controls.releaseFault(held.id);
        }
        const [firstAnswer, ...rest] = await Promise.all(answers);
        assert.ok(firstAnswer && 'result' in firstAnswer, `its workflow running, sent: ${JSON.stringify(firstAnswer)}`);
        assert.deepEqual(rest, [{ withdrawn: true }, { withdrawn: true }, { withdrawn: true }], 'the others not sent');
        assert.equal(k.created().filter((id) => !before.has(id)).length, 1, "one created, the running workflow's");
        await Promise.all(requesters.map((w) => w.terminate('done').catch(() => {})));
      });
    });

  // A hang guard, not a speed check: before, the workflow waited for its held send's answer, up to HOLD_AT_MOST_MS.
  for (const [strategy, target] of [
    ['heartbeat', TG.sales],
    ['deferrable', TG.finance],
  ] as const)
    test(`${strategy}: cancelled while its send is in flight, it ends at once and its job is left running`, async () => {
      await withProjectWorker(s.d.env, await deps(s), async (taskQueue) => {
        const before = new Set(profiling(target).map((j) => j.id));
        const held = hold(target);
        try {
          const h = await s.d.env.client.workflow.start('dataops.profileTableGroup', {
            taskQueue,
            workflowId: `leave-in-flight-${strategy}-${taskQueue}`,
            args: [{ tableGroupId: target, waitStrategy: strategy, cancelRemoteJob: false, pollIntervalMs: 200 }],
          });
          await eventually('its send held', () => faultHits(s.sim, held) === 1);
          await h.cancel();
          const err = await h.result().catch((e: unknown) => e);
          assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure, String(err));
          assert.equal(profiling(target).filter((j) => !before.has(j.id)).length, 0, 'ended while its send was held');
        } finally {
          s.sim.controls.releaseFault(held.id);
        }
        const submitter = s.d.env.client.workflow.getHandle(submitterAt(s.sim.url, taskQueue, 'profiling', target));
        await eventually('its send answered', async () => {
          const { sending, queued } = await submitter.query(requestsQuery);
          return sending.length === 0 && queued.length === 0;
        });
        const created = profiling(target).filter((j) => !before.has(j.id));
        assert.equal(created.length, 1, 'its send created one job');
        assert.ok(
          !['canceled', 'cancel_requested'].includes(created[0]!.status),
          `left running: ${created[0]!.status}`,
        );
      });
    });
});
