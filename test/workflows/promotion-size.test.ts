import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PromoteTestDefinitionsResult } from '../../src/contract/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { BULK, bulkSeed } from '../helpers/bulk-seed.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startTimeSkippingEnv, type TestEnv } from '../helpers/temporal.js';

const { source: BULK_DEV, target: BULK_PROD } = BULK;

describe('promotion at size', () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  before(async () => {
    t = await startTimeSkippingEnv();
    ({ sim } = await startTestSimulator({ seed: bulkSeed() }));
  });
  after(async () => {
    await sim?.close();
    await t?.env.teardown();
  });

  test('20,000 definitions promote with history far below the payload and history limits', async (ctx) => {
    const started = performance.now();
    const { result, events, largest, total } = await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const handle = await t.env.client.workflow.start('dataops.promoteTestDefinitions', {
        taskQueue,
        workflowId: `bulk-${taskQueue}`,
        args: [
          {
            source: { testSuiteId: BULK_DEV },
            targetTestSuiteId: BULK_PROD,
            preset: 'upsert',
            approval: { required: false },
          },
        ],
      });
      const out = (await handle.result()) as PromoteTestDefinitionsResult;
      const history = await handle.fetchHistory();
      const sizes = (history.events ?? []).map((e) => JSON.stringify(e).length);
      return {
        result: out,
        events: sizes.length,
        largest: Math.max(...sizes),
        total: sizes.reduce((a, b) => a + b, 0),
      };
    });
    assert.equal(result.status, 'applied');
    assert.equal(result.preview.export.definitions, 20_000);
    assert.deepEqual(result.preview.summary, { created: 10_000, updated: 10_000, skipped: 0, deleted: 0 });
    assert.deepEqual(result.applied?.summary, { created: 10_000, updated: 10_000, skipped: 0, deleted: 0 });
    assert.equal(result.preview.items, null, 'the 20,000 items are stored, not inline');
    assert.ok(result.preview.itemsRef && result.applied?.itemsRef);
    assert.ok(
      result.preview.export.file.bytes > 2_000_000,
      `the export file is ${result.preview.export.file.bytes} bytes: over the payload limit`,
    );
    assert.equal(sim.controls.definitions(BULK_PROD).length, 20_000);
    assert.ok(largest < 64 * 1024, `largest history event ${largest} bytes`);
    assert.ok(events < 50, `${events} events`);
    ctx.diagnostic(
      `20,000 definitions: export file ${result.preview.export.file.bytes} bytes (by claim check); history ${events} events, ` +
        `${total} bytes in all, largest event ${largest} bytes; ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  });
});
