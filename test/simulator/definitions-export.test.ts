/** The simulator's test-definition export: filters, compactness, external ids, version and source. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEV, PROD, FIN, X, exportFile, importInto, PRESETS, freshSimulators } from '../helpers/definitions.js';

const fresh = freshSimulators();

describe('export', () => {
  test('filters by origin, table name and test type', async () => {
    const { http } = await fresh();
    const count = async (q: string) => (await exportFile(http, DEV, q)).definitions.length;
    assert.equal(await count(''), 9);
    assert.equal(await count('?origin=both'), 9);
    assert.equal(await count('?origin=auto'), 6);
    assert.equal(await count('?origin=manual'), 3);
    assert.equal(await count('?table_name=customers'), 2);
    assert.equal(await count('?test_type=Unique'), 1);
    assert.equal(await count('?origin=auto&table_name=orders'), 5);
    const bad = await http.as('admin', 'GET', `/api/v1/test-suites/${DEV}/test-definition-export?origin=sometimes`);
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.detail[0].loc, ['query', 'origin']);
  });

  test('is compact: defaults and internal fields are omitted, set fields kept', async () => {
    const { http } = await fresh();
    const defs = (await exportFile(http, PROD)).definitions as Record<string, unknown>[];
    const unique = defs.find((d) => d.test_type === 'Unique');
    assert.deepEqual(Object.keys(unique ?? {}).sort(), [
      'column_name',
      'last_auto_gen_date',
      'table_name',
      'test_type',
      'threshold_value',
    ]);
    assert.equal(defs.find((d) => d.test_type === 'Missing_Pct')?.lock_refresh, true);
    for (const d of defs) for (const k of ['id', 'test_suite_id', 'schema_name']) assert.equal(k in d, false, k);
    const fin = (await exportFile(http, FIN)).definitions as Record<string, unknown>[];
    assert.equal(fin.find((d) => d.column_name === 'owner')?.test_active, false, 'a non-default value is kept');
  });

  test('gives a manual definition its external_id at the first export, and keeps it', async () => {
    const { http, sim } = await fresh();
    assert.equal(sim.controls.definitions(DEV).find((d) => d.test_type === 'Email_Format')?.external_id, undefined);
    const first = (await exportFile(http, DEV, '?origin=manual')).definitions as Record<string, unknown>[];
    const id = first.find((d) => d.test_type === 'Email_Format')?.external_id;
    assert.match(String(id), /^[0-9a-f-]{36}$/);
    const second = (await exportFile(http, DEV, '?origin=manual')).definitions as Record<string, unknown>[];
    assert.equal(second.find((d) => d.test_type === 'Email_Format')?.external_id, id);
    assert.equal(first.find((d) => d.test_type === 'CUSTOM')?.external_id, X.orderStatus, 'existing ids are kept');
  });

  test('carries version 1 and the source block; a deployment may omit version, read as 1', async () => {
    const { http } = await fresh();
    const file = await exportFile(http, DEV);
    assert.equal(file.version, 1);
    assert.equal(file.source.project_code, 'DEMO');
    assert.equal(file.source.test_suite, 'sales-dev');
    assert.ok(!Number.isNaN(Date.parse(file.source.exported_at)));
    const other = await fresh({ variants: { omitExportVersion: true } });
    const noVersion = await exportFile(other.http, DEV);
    assert.equal('version' in noVersion, false);
    const res = await importInto(other.http, PROD, { mode: 'preview', ...PRESETS.upsert! }, noVersion);
    assert.equal(res.status, 200);
  });
});
