/**
 * Creating an order once. A failure before the order is sent (the order listing read first, the session renewal
 * behind it) is certain: nothing was sent, so the next attempt creates the order, with no lookup and no
 * OrderOutcomeUnknown. Before, such an attempt left no phase behind, and the retry failed as if the order might exist.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RunOrderResult } from '../../src/contract/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { faultHits, startTestSimulator } from '../helpers/sim.js';
import { startDevServerEnv, type TestEnv } from '../helpers/temporal.js';

const ORDER = { kitchen: 'production', recipe: 'load-warehouse', variation: 'daily' };

describe('creating an order once', () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  before(async () => {
    t = await startDevServerEnv();
    ({ sim } = await startTestSimulator());
  });
  after(async () => {
    await sim?.close();
    await t?.env.teardown();
  });

  for (const [what, fault] of [
    ['the order listing answers 503', { kind: 'status', status: 503 }],
    ['the order listing is reset', { kind: 'reset' }],
  ] as const)
    test(`${what} before the order is sent: the retry creates it, once`, async () => {
      const listing = sim.controls.addFault({ ...fault, method: 'GET', path: '/v2/order/status/production', count: 1 });
      const known = new Set(sim.controls.orders().map((o) => o.id));
      const result = await withProjectWorker(t.env, await simDeps(sim), (taskQueue) =>
        t.env.client.workflow.execute('dataops.runOrder', {
          taskQueue,
          workflowId: `order-create-${taskQueue}`,
          args: [ORDER],
        }),
      );
      const created = sim.controls.orders().filter((o) => !known.has(o.id));
      assert.equal(faultHits(sim, listing), 1, 'the first attempt failed before sending');
      assert.deepEqual(
        created.map((o) => o.id),
        [(result as RunOrderResult).orderId],
      );
      assert.equal((result as RunOrderResult).reconciled, false, 'created by its own answer, not found by a lookup');
    });
});
