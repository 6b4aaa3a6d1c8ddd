import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { startTestSimulator, type SimHttp } from '../helpers/sim.js';

describe('simulator orders', () => {
  let sim: RunningSimulator;
  let http: SimHttp;
  before(async () => {
    ({ sim, http } = await startTestSimulator({
      manualClock: true,
      orderDurations: { plannedMs: 1_000, runMs: 10_000 },
    }));
  });
  after(async () => sim?.close());

  const parameters = {
    schedule_start: '2026-12-01T02:00:00Z',
    storage_bucket: 's3://warehouse-backfill',
    image_tag: 'loader:2.4.1',
    source_data_date: '2026-06-30',
    alert_slack_channel: '#dq-alerts',
  };

  test('creates an order with overrides of the four kinds, recorded and visible', async () => {
    const res = await http.as('admin', 'PUT', '/v2/order/create/production/load-warehouse/backfill', {
      parameters,
      schedule: 'now',
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'success');
    assert.match(res.body.order_id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(res.body.variable_overrides, parameters);
    const servings = await http.as('admin', 'GET', `/v2/order/servings/production/${res.body.order_id}`);
    assert.equal(servings.body.servings.length, 1);
    assert.deepEqual(servings.body.servings[0].overrides_by_kind, {
      order_schedule: { schedule_start: '2026-12-01T02:00:00Z' },
      infrastructure: { storage_bucket: 's3://warehouse-backfill', image_tag: 'loader:2.4.1' },
      source_data_date: { source_data_date: '2026-06-30' },
      alert_destination: { alert_slack_channel: '#dq-alerts' },
    });
    const recorded = sim.controls.orders().find((o) => o.id === res.body.order_id);
    assert.deepEqual(recorded?.parameters, parameters);
  });

  test('an order without a body works; an unknown kitchen, recipe, variation or variable is 417 with a message', async () => {
    assert.equal((await http.as('admin', 'PUT', '/v2/order/create/production/refresh-marts/full')).status, 200);
    for (const [path, body, pattern] of [
      ['/v2/order/create/kitchen-x/load-warehouse/daily', undefined, /Kitchen 'kitchen-x'/],
      ['/v2/order/create/production/nope/daily', undefined, /Recipe 'nope'/],
      ['/v2/order/create/production/load-warehouse/weekly', undefined, /Variation 'weekly'/],
      ['/v2/order/create/production/load-warehouse/daily', { parameters: { db_shema: 'x' } }, /'db_shema'/],
    ] as const) {
      const res = await http.as('admin', 'PUT', path, body);
      assert.equal(res.status, 417, path);
      assert.match(res.body.message, pattern);
    }
    const bad = await http.as('admin', 'PUT', '/v2/order/create/production/load-warehouse/daily', {
      parameters: ['x'],
    });
    assert.equal(bad.status, 422);
  });

  test('order runs progress over time, readable through servings and details', async () => {
    const order = await http.as('admin', 'PUT', '/v2/order/create/production/load-warehouse/daily');
    const list = await http.as('admin', 'GET', `/v2/order/servings/production/${order.body.order_id}`);
    const hid = list.body.servings[0].hid;
    const status = async () => {
      const res = await http.as('admin', 'POST', '/v2/order/details/production', { serving_hid: hid, summary: true });
      assert.equal(res.status, 200);
      return res.body.servings[0].status as string;
    };
    assert.equal(await status(), 'PLANNED_SERVING');
    sim.controls.advanceClock(1_000);
    assert.equal(await status(), 'ACTIVE_SERVING');
    sim.controls.advanceClock(10_000);
    assert.equal(await status(), 'COMPLETED_SERVING');
  });

  test('a failing variation ends in SERVING_ERROR; stop ends a run in STOPPED_SERVING', async () => {
    const failing = await http.as('admin', 'PUT', '/v2/order/create/staging/load-warehouse/broken');
    const stopped = await http.as('admin', 'PUT', '/v2/order/create/staging/load-warehouse/daily');
    const hidOf = async (id: string) =>
      (await http.as('admin', 'GET', `/v2/order/servings/staging/${id}`)).body.servings[0].hid as string;
    const stoppedHid = await hidOf(stopped.body.order_id);
    assert.equal((await http.as('admin', 'PUT', `/v2/serving/stop/${stoppedHid}`)).status, 200);
    sim.controls.advanceClock(11_000);
    const details = async (hid: string) =>
      (await http.as('admin', 'POST', '/v2/order/details/staging', { serving_hid: hid })).body.servings[0].status;
    assert.equal(await details(await hidOf(failing.body.order_id)), 'SERVING_ERROR');
    assert.equal(await details(stoppedHid), 'STOPPED_SERVING');
    const other = await http.as('admin', 'PUT', '/v2/order/create/staging/load-warehouse/daily');
    assert.equal((await http.as('admin', 'PUT', `/v2/order/stop/${other.body.order_id}`)).status, 200);
    assert.equal(await details(await hidOf(other.body.order_id)), 'STOPPED_SERVING');
  });

  test('the order id key follows the deployment variant', async () => {
    for (const key of ['serving_hid', 'serving_chronos_id'] as const) {
      const v = await startTestSimulator({ variants: { orderIdKey: key } });
      try {
        const res = await v.http.as('admin', 'PUT', '/v2/order/create/production/load-warehouse/daily');
        assert.match(res.body[key], /^[0-9a-f-]{36}$/);
        assert.equal(res.body.order_id, undefined);
      } finally {
        await v.sim.close();
      }
    }
  });
});
