/**
 * Found by the explorer (seed 84 on the main that had holes 1–10 open): an order whose create answer was lost while
 * its workflow was being cancelled, with a person's order of the same recipe created meanwhile. The lookup could not
 * tell which was ours and failed OrderOutcomeUnknown, naming both; the workflow then ended `cancelled`, as if nothing
 * had been created, and the order ran on, unnamed. (Here the lookup first took the person's order, seen before ours
 * committed, and stopped it.) A lone new order is now taken only once the settle window has ended, and a write that
 * may have created something ends its workflow with that failure even through a cancel: the failure names both.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { ending } from '../helpers/ending.js';
import { SimHttp, faultHits } from '../helpers/sim.js';
import { eventually } from '../helpers/wait.js';

const ORDER = { kitchen: 'production', recipe: 'load-warehouse', variation: 'daily' };

describe('a cancel while a write cannot be told', () => {
  const s = devServerAndSimulator({});

  test('explored 1: an order of unknown outcome ends its cancelled workflow failed, naming the orders', async () => {
    const known = new Set(s.sim.controls.orders().map((o) => o.id));
    // The create is held past the client's timeout (its answer lost), and commits when the hold ends, within the
    // settle window (5 s, above the service's hold, as the setting asks).
    const lost = s.sim.controls.addFault({ kind: 'delay', delay_ms: 3_000, method: 'PUT', path: '/v2/order/create' });
    const end = await withProjectWorker(
      s.d.env,
      await simDeps(s.sim, { timeoutMs: 1_000, submitSettleMs: 5_000 }),
      async (taskQueue) => {
        const handle = await s.d.env.client.workflow.start('dataops.runOrder', {
          taskQueue,
          workflowId: `explored-1-${taskQueue}`,
          args: [{ ...ORDER, wait: true, pollIntervalMs: 200 }],
        });
        await eventually('the create held', () => faultHits(s.sim, lost) === 1);
        // A person creates the same order in the service's UI, and the workflow is cancelled.
        const person = await new SimHttp(s.sim).as(
          'admin',
          'PUT',
          `/v2/order/create/${ORDER.kitchen}/${ORDER.recipe}/${ORDER.variation}`,
          {
            parameters: {},
          },
        );
        assert.equal(person.status, 200);
        await handle.cancel();
        return ending(handle);
      },
    );
    const fresh = await eventually('both orders created', () => {
      const f = s.sim.controls.orders().filter((o) => !known.has(o.id));
      return f.length === 2 ? f : undefined;
    });
    assert.equal(end.outcome, 'failed', `ended ${end.outcome}`);
    assert.match(end.failure ?? '', /OrderOutcomeUnknown/);
    for (const o of fresh) assert.ok(end.failure?.includes(o.id), `${o.id} named in: ${end.failure}`);
  });
});
