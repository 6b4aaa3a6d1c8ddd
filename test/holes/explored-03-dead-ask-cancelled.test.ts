/**
 * Found by the explorer (seed 54 with `--sole-writer`): a profiling run's submission asked its target's submitter and
 * waited its turn behind a slow send; the worker running that ask died, and the workflow was cancelled. The dead ask
 * timed out with no retry (the cancel forbids one), so nobody withdrew its request: the workflow ended `cancelled`,
 * and the submitter sent the request afterwards, a job nobody watched. An ask that ends unanswered now has its request
 * withdrawn, or its answer heard and its job cancelled, before the workflow ends. The same holds for an order. (A
 * cancel settles a live ask's request the same way, at once: test/exactly-once/cancel-settles.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { requestsQuery } from '../../src/exactly-once/messages.js';
import { isTerminalJobStatus, isTerminalOrderRunStatus } from '../../src/vocabulary.js';
import { ending } from '../helpers/ending.js';
import { cellIds } from '../helpers/matrix.js';
import { worldOfCells, type World } from '../helpers/matrix-world.js';
import { eventually } from '../helpers/wait.js';
import { orderSubmitterAt, submitterAt } from '../helpers/sim.js';

const LONG = { timeout: 5 * 60_000 };

describe('explored 3: an ask whose worker died, then a cancel', { concurrency: 2 }, () => {
  const world = worldOfCells(3);

  const kinds = (cell: number, queue: string, url: string) => {
    const ids = cellIds(cell);
    const order = { kitchen: 'production', recipe: 'refresh-marts', variation: 'full' };
    return {
      profiling: {
        type: 'dataops.profileTableGroup',
        args: { tableGroupId: ids.tableGroup, pollIntervalMs: 200, statusReports: 0 },
        path: `/table-groups/${ids.tableGroup}/profiling-runs`,
        method: 'POST',
        submitter: submitterAt(url, queue, 'profiling', ids.tableGroup),
      },
      order: {
        type: 'dataops.runOrder',
        args: { ...order, wait: true, pollIntervalMs: 200 },
        path: '/v2/order/create/production/refresh-marts/full',
        method: 'PUT',
        submitter: orderSubmitterAt(url, queue, order),
      },
    };
  };

  type Kind = ReturnType<typeof kinds>[keyof ReturnType<typeof kinds>];

  /** A first request whose send the service holds `holdMs`, and a victim's request queued behind it. */
  async function victimQueued(w: World, queue: string, kind: Kind, holdMs: number) {
    const held = await w.controls.addFault({ kind: 'delay', delay_ms: holdMs, method: kind.method, path: kind.path });
    const start = (name: string) =>
      w.client.workflow.start(kind.type, { taskQueue: queue, workflowId: `${queue}-${name}`, args: [kind.args] });
    const first = await start('first');
    await eventually(
      'the first send held',
      async () => (await w.controls.faults()).some((f) => f.id === held.id && f.hits === 1),
      { tries: 600, delayMs: 50 },
    );
    const victim = await start('victim');
    const submitter = w.client.workflow.getHandle(kind.submitter);
    const requestOf = `${victim.workflowId}/`;
    await eventually('the victim’s request queued behind it', async () =>
      (await submitter.query(requestsQuery)).queued.some((id) => id.startsWith(requestOf)),
    );
    return { first, victim, submitter, requestOf };
  }

  const scenario = (which: 'profiling' | 'order', cell: number) => async () => {
    const w = world();
    const queue = `explored-3-${which}-${Date.now()}`;
    const kind = kinds(cell, queue, w.controls.url)[which];
    const workers = [w.startWorker(queue), w.startWorker(queue)];
    // Nothing ends by itself while the test looks: a job or order left running stays running.
    await w.controls.jobDurations({ pendingMs: 100, claimMs: 100, runMs: 600_000, cancelMs: 100 });
    await w.controls.orderDurations({ plannedMs: 100, runMs: 600_000 });
    const { first, victim, submitter, requestOf } = await victimQueued(w, queue, kind, 4_000);
    // The worker running the victim's ask dies; the workflow is cancelled before that ask is retried.
    const asking = (await victim.describe()).raw.pendingActivities?.[0]?.lastWorkerIdentity ?? '';
    const dead = workers.find((p) => asking.startsWith(`${p.child.pid}@`));
    assert.ok(dead, `the worker running the ask (${asking})`);
    await dead.stop('SIGKILL');
    await victim.cancel();
    const end = await ending(victim);
    assert.equal(end.outcome, 'cancelled', `the victim ended ${end.outcome}: ${end.failure ?? ''}`);
    const closedAt = (await victim.describe()).closeTime?.getTime() ?? Date.now();
    // Whatever its request created is at rest when the workflow ends: withdrawn unsent, or sent and cancelled.
    const mine = async () =>
      which === 'profiling'
        ? (await w.controls.jobs())
            .filter((j) => j.request_id?.startsWith(requestOf))
            .map((j) => ({ id: j.id, createdAt: j.created_at, atRest: isTerminalJobStatus(j.status) }))
        : (await w.controls.orders())
            .filter((o) => (o as { request_id?: string | null }).request_id?.startsWith(requestOf))
            .map((o) => ({
              id: o.id,
              createdAt: Date.parse(o.created_at),
              atRest: o.servings.every((s) => isTerminalOrderRunStatus(s.status)),
            }));
    const running = (await mine()).filter((x) => !x.atRest);
    assert.deepEqual(running, [], `the victim's ${which} left running when it ended`);
    // Nor is anything sent for it later (then undone, the requester gone): the submitter done with the victim's.
    await first.terminate('done with it').catch(() => undefined);
    await eventually(
      'the submitter done with the victim’s request',
      async () => {
        const { sending, queued } = await submitter.query(requestsQuery);
        return ![...sending, ...queued].some((id) => id.startsWith(requestOf));
      },
      { tries: 1_200, delayMs: 100 },
    );
    const late = (await mine()).filter((x) => x.createdAt > closedAt);
    assert.deepEqual(late, [], `the victim's ${which} created after it ended (at ${closedAt})`);
  };

  test(
    'a profiling run queued behind a slow send: withdrawn, or found and cancelled, before the workflow ends',
    LONG,
    scenario('profiling', 0),
  );
  test(
    'an order queued behind a slow create: withdrawn, or found and stopped, before the workflow ends',
    LONG,
    scenario('order', 1),
  );
});
