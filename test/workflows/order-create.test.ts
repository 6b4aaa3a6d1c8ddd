/**
 * Creating an order once. A failure before the order is sent (the order listing read first, the session renewal
 * behind it) is certain: nothing was sent, so the next attempt creates the order, with no lookup and no
 * OrderOutcomeUnknown. Before, such an attempt left no phase behind, and the retry failed as if the order might exist.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RunOrderResult } from '../../src/contract/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { faultHits } from '../helpers/sim.js';

const ORDER = { kitchen: 'production', recipe: 'load-warehouse', variation: 'daily' };

describe('creating an order once', () => {
  const s = devServerAndSimulator({});

  for (const [what, fault] of [
    ['the order listing answers 503', { kind: 'status', status: 503 }],
    ['the order listing is reset', { kind: 'reset' }],
  ] as const)
    test(`${what} before the order is sent: the retry creates it, once`, async () => {
      const listing = s.sim.controls.addFault({
        ...fault,
        method: 'GET',
        path: '/v2/order/status/production',
        count: 1,
      });
      const known = new Set(s.sim.controls.orders().map((o) => o.id));
      const result = await withProjectWorker(s.d.env, await simDeps(s.sim), (taskQueue) =>
        s.d.env.client.workflow.execute('dataops.runOrder', {
          taskQueue,
          workflowId: `order-create-${taskQueue}`,
          args: [ORDER],
        }),
      );
      const created = s.sim.controls.orders().filter((o) => !known.has(o.id));
      assert.equal(faultHits(s.sim, listing), 1, 'the first attempt failed before sending');
      assert.deepEqual(
        created.map((o) => o.id),
        [(result as RunOrderResult).orderId],
      );
      assert.equal((result as RunOrderResult).reconciled, false, 'created by its own answer, not found by a lookup');
    });
});
