import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PromoteTestDefinitionsResult } from '../../src/contract/index.js';
import { defaultSeed, type RunningSimulator, type SeedInput } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startTimeSkippingEnv, type TestEnv } from '../helpers/temporal.js';

const BULK_TG = 'a1000000-0000-4000-8000-0000000000b1';
const BULK_DEV = 'b2000000-0000-4000-8000-0000000000b1';
const BULK_PROD = 'b2000000-0000-4000-8000-0000000000b2';
const TYPES = [
  'Unique',
  'Missing_Pct',
  'Min_Val',
  'Avg_Shift',
  'Recency',
  'Required',
  'Row_Ct',
  'Alpha_Trunc',
  'Distinct_Value_Ct',
  'LOV_Match',
];
const TABLES = 50;
const COLUMNS = 40;

/** The seed plus a table group of 50 tables × 40 columns, a development suite of 20,000 definitions and a production
 * suite holding the even-numbered half of them. */
function bulkSeed(): SeedInput {
  const tables = Array.from({ length: TABLES }, (_, t) => ({
    name: `fact_${t}`,
    columns: Array.from({ length: COLUMNS }, (_, c) => `col_${c}`),
    record_ct: 1_000_000,
  }));
  const defs = [];
  for (const type of TYPES)
    for (let t = 0; t < TABLES; t++)
      for (let c = 0; c < COLUMNS; c++)
        defs.push({
          test_type: type,
          table_name: `fact_${t}`,
          column_name: `col_${c}`,
          threshold_value: String((t * c) % 97),
          last_auto_gen_date: '2026-10-01T00:00:00Z',
          test_description: `${type} on fact_${t}.col_${c}`,
        });
  return {
    ...defaultSeed,
    table_groups: [
      ...defaultSeed.table_groups,
      { id: BULK_TG, name: 'bulk', project_code: 'DEMO', schema_name: 'bulk', tables },
    ],
    test_suites: [
      ...defaultSeed.test_suites,
      { id: BULK_DEV, name: 'bulk-dev', project_code: 'DEMO', table_group_id: BULK_TG, definitions: defs },
      {
        id: BULK_PROD,
        name: 'bulk-prod',
        project_code: 'DEMO',
        table_group_id: BULK_TG,
        definitions: defs.filter((_, i) => i % 2 === 0),
      },
    ],
  };
}

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
      const handle = await t.env.client.workflow.start('promoteTestDefinitions', {
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
