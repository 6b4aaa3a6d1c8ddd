/**
 * The order activities against the simulator: an order created (as its recipe's submitter creates it, send-in-turn.ts)
 * and its run waited for, and the run's page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { activityFunctions, type ActivityDeps } from '../../src/activities/index.js';
import { activityContext } from '../../src/activities/context.js';
import { orderWrite } from '../../src/activities/orders.js';
import type { OrderResult } from '../../src/contract/types.js';
import { SIM_CUSTOMER, type RunningSimulator } from '../../src/simulator/index.js';
import { simDeps } from '../helpers/activities.js';
import { batchEnvironment, run, runIn } from '../helpers/mock-activity.js';
import { startTestSimulator } from '../helpers/sim.js';

describe('order activities', () => {
  let sim: RunningSimulator;
  let deps: ActivityDeps;
  before(async () => {
    // Long enough that the wait's 20 ms polls see the run before it ends, even on a loaded machine (polls >= 2 below).
    ({ sim } = await startTestSimulator({ orderDurations: { plannedMs: 200, runMs: 400 } }));
    deps = await simDeps(sim);
  });
  after(async () => sim?.close());

  /** Creates an order as the submitter's batch does, first in its turn, for a requester still running. */
  const creating = (d: ActivityDeps) => (input: Record<string, unknown>) =>
    runIn(
      batchEnvironment(),
      async () =>
        (await orderWrite(activityContext(d)).send(input, {
          prior: { mayHaveSent: false },
          record: async () => undefined,
        })) as OrderResult,
    );

  test('runOrder then waitForOrderRun: the order id, the overrides, and the final run status', async () => {
    const acts = activityFunctions(deps);
    const runOrder = creating(deps);
    const order = await runOrder({
      kitchen: 'production',
      recipe: 'load-warehouse',
      variation: 'backfill',
      parameters: { source_data_date: '2026-06-30', schedule_start: 'now' },
    });
    assert.deepEqual(order.variableOverrides, { source_data_date: '2026-06-30', schedule_start: 'now' });
    const done = await run(acts.waitForOrderRun, { kitchen: 'production', orderId: order.orderId, pollIntervalMs: 20 });
    assert.equal(done.status, 'COMPLETED_SERVING');
    assert.ok(done.polls >= 2);
    // Its page in the UI, addressed by the account GET /v2/userinfo names (deployed-variants.md).
    assert.equal(done.url, `${sim.url}/#/orders/${SIM_CUSTOMER}/production/runs/${done.orderRunId}`);
    const failing = await runOrder({ kitchen: 'staging', recipe: 'load-warehouse', variation: 'broken' });
    assert.equal(
      (await run(acts.waitForOrderRun, { kitchen: 'staging', orderId: failing.orderId, pollIntervalMs: 20 })).status,
      'SERVING_ERROR',
    );
  });

  test("an order run's page: the account is asked once per client, and a refusal leaves only the page out", async () => {
    const d = await simDeps(sim);
    const acts = activityFunctions(d);
    const runOrder = creating(d);
    const userinfo = () => sim.controls.requests().filter((r) => r.path === '/v2/userinfo').length;
    const waited = async () => {
      const order = await runOrder({
        kitchen: 'production',
        recipe: 'load-warehouse',
        variation: 'backfill',
      });
      return run(acts.waitForOrderRun, { kitchen: 'production', orderId: order.orderId, pollIntervalMs: 20 });
    };
    const before = userinfo();
    sim.controls.addFault({ kind: 'status', status: 404, path: '/v2/userinfo', count: 1 });
    const refused = await waited();
    assert.equal(refused.status, 'COMPLETED_SERVING', 'the wait ends as it would');
    assert.equal(refused.url, undefined, 'no page where the account is not known');
    const first = await waited();
    const second = await waited();
    assert.ok(first.url?.endsWith(`/runs/${first.orderRunId}`), String(first.url));
    assert.ok(second.url?.endsWith(`/runs/${second.orderRunId}`), String(second.url));
    assert.equal(userinfo() - before, 2, 'asked again after the refusal, then known');
    // Two waits of a new client ending together share one read of the account, held by the service meanwhile.
    const freshDeps = await simDeps(sim);
    const fresh = activityFunctions(freshDeps);
    const freshOrder = creating(freshDeps);
    sim.controls.addFault({ kind: 'delay', delay_ms: 3_000, path: '/v2/userinfo', count: 1 });
    const [a, b] = await Promise.all(
      ['backfill', 'daily'].map(async (variation) => {
        const o = await freshOrder({ kitchen: 'production', recipe: 'load-warehouse', variation });
        return run(fresh.waitForOrderRun, { kitchen: 'production', orderId: o.orderId, pollIntervalMs: 20 });
      }),
    );
    assert.ok(a?.url?.endsWith(`/runs/${a.orderRunId}`) && b?.url?.endsWith(`/runs/${b.orderRunId}`), 'both pages');
    assert.equal(userinfo() - before, 3, 'one more read for the two');
  });
});
