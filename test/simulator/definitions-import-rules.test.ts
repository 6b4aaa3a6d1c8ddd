/**
 * The simulator's test-definition import: strict mode, what each field means, and rejected requests that change
 * nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEV, PROD, X, exportFile, importInto, PRESETS, freshSimulators } from '../helpers/definitions.js';

const fresh = freshSimulators();

describe('import: strict mode', () => {
  for (const shape of ['nested', 'top-level'] as const) {
    test(`apply_strict answers 400 with the ${shape} body and changes nothing`, async () => {
      const { http, sim } = await fresh({ variants: { strictErrorShape: shape } });
      const file = await exportFile(http, DEV);
      const before = sim.controls.definitions(PROD);
      const res = await importInto(http, PROD, { mode: 'apply_strict', ...PRESETS.upsert! }, file);
      assert.equal(res.status, 400);
      const body = shape === 'nested' ? res.body.detail : res.body;
      assert.equal(body.errors[0].code, 'strict_validation_failed');
      assert.match(body.errors[0].message, /^3 definition/);
      assert.deepEqual(body.import_result.summary, { created: 3, updated: 3, skipped: 3, deleted: 0 });
      assert.deepEqual(sim.controls.definitions(PROD), before);
    });
  }

  test('apply_strict applies when nothing would be skipped', async () => {
    const { http, sim } = await fresh();
    const file = await exportFile(http, DEV, '?table_name=orders');
    const res = await importInto(
      http,
      PROD,
      { mode: 'apply_strict', on_match: 'overwrite_all', on_new: 'create', on_absence: 'do_nothing' },
      file,
    );
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.summary, { created: 2, updated: 4, skipped: 0, deleted: 0 });
    assert.equal(sim.controls.definitions(PROD).find((d) => d.test_type === 'Missing_Pct')?.threshold_value, '0.02');
  });
});

describe('import: field semantics', () => {
  test('a field absent from the file leaves the target field as it was; test_type, last_auto_gen_date and external_id never change', async () => {
    const { http, sim } = await fresh();
    const payload = {
      version: 1,
      definitions: [
        {
          test_type: 'CUSTOM',
          table_name: 'orders',
          column_name: 'status',
          external_id: X.orderStatus,
          threshold_value: '7',
        },
        {
          test_type: 'Unique',
          table_name: 'orders',
          column_name: 'id',
          threshold_value: '1',
          last_auto_gen_date: '2030-01-01T00:00:00Z',
        },
      ],
    };
    const before = sim.controls.definitions(PROD);
    const res = await importInto(
      http,
      PROD,
      { mode: 'apply', on_match: 'overwrite_all', on_new: 'skip', on_absence: 'do_nothing' },
      payload,
    );
    assert.deepEqual(res.body.summary, { created: 0, updated: 2, skipped: 0, deleted: 0 });
    const custom = sim.controls.definitions(PROD).find((d) => d.external_id === X.orderStatus);
    assert.equal(custom?.threshold_value, '7');
    assert.equal(custom?.test_description, 'Order status is one of the known values');
    assert.equal(custom?.custom_query, before.find((d) => d.external_id === X.orderStatus)?.custom_query);
    const unique = sim.controls.definitions(PROD).find((d) => d.test_type === 'Unique');
    assert.equal(unique?.threshold_value, '1');
    assert.equal(unique?.last_auto_gen_date, before.find((d) => d.test_type === 'Unique')?.last_auto_gen_date);
  });

  test('unknown fields survive an export → import → export round trip untouched', async () => {
    const { http } = await fresh();
    const file = await exportFile(http, DEV);
    file.definitions[0].future_field = { nested: [1, 2, { deep: true }] };
    const res = await importInto(http, PROD, { mode: 'apply', ...PRESETS.clone_or_sync! }, file);
    assert.equal(res.status, 200);
    const back = (await exportFile(http, PROD)).definitions as Record<string, unknown>[];
    assert.deepEqual(back.find((d) => d.test_type === 'Unique' && d.column_name === 'id')?.future_field, {
      nested: [1, 2, { deep: true }],
    });
    assert.deepEqual(back.find((d) => d.external_id === X.orderStatus)?.custom_metadata, {
      owner: 'sales-data-team',
      ticket: 'DQ-412',
    });
    assert.equal(back.find((d) => d.test_type === 'Avg_Shift')?.baseline_sd, '12.7');
  });

  test('the schema name comes from the target table group, never from the file', async () => {
    const { http, sim } = await fresh();
    const file = await exportFile(http, DEV, '?test_type=Avg_Shift');
    file.definitions[0].schema_name = 'attacker_schema';
    await importInto(http, PROD, { mode: 'apply', ...PRESETS.upsert! }, file);
    const created = sim.controls.definitions(PROD).find((d) => d.test_type === 'Avg_Shift');
    assert.equal(created?.schema_name, 'sales');
    assert.equal(sim.controls.definitions(DEV).find((d) => d.test_type === 'Avg_Shift')?.schema_name, 'sales_dev');
  });
});

describe('import: rejected requests change nothing', () => {
  test('duplicate natural keys, unsupported versions, missing config keys, bad enums, bad payloads, too-large bodies', async () => {
    const { http, sim } = await fresh({ maxBodyBytes: 256 * 1024 });
    const before = sim.controls.definitions(PROD);
    const auto = {
      test_type: 'Unique',
      table_name: 'orders',
      column_name: 'id',
      last_auto_gen_date: '2026-01-01T00:00:00Z',
    };
    const cfg = { mode: 'apply', ...PRESETS.upsert! };

    const dup = await importInto(http, PROD, cfg, {
      version: 1,
      definitions: [auto, { ...auto, threshold_value: '9' }],
    });
    assert.equal(dup.status, 400);
    assert.equal(dup.body.detail.errors[0].code, 'duplicate_natural_key');

    const v2 = await importInto(http, PROD, cfg, { version: 2, definitions: [auto] });
    assert.equal(v2.status, 400);
    assert.equal(v2.body.detail.errors[0].code, 'unsupported_version');

    const missingKey = await http.as('admin', 'POST', `/api/v1/test-suites/${PROD}/test-definition-import`, {
      config: { mode: 'apply', on_match: 'skip', on_new: 'create' },
      payload: { definitions: [] },
    });
    assert.equal(missingKey.status, 422);
    assert.deepEqual(missingKey.body.detail[0].loc, ['body', 'config', 'on_absence']);

    const badEnum = await importInto(http, PROD, { ...cfg, on_new: 'create_maybe' }, { definitions: [] });
    assert.equal(badEnum.status, 422);
    assert.deepEqual(badEnum.body.detail[0].loc, ['body', 'config', 'on_new']);

    // A missing column is a table-level test (TestGen accepts it); a missing test type is malformed.
    const badDefs = await importInto(http, PROD, cfg, { definitions: [{ table_name: 'orders', column_name: 'id' }] });
    assert.equal(badDefs.status, 422);
    assert.deepEqual(badDefs.body.detail[0].loc, ['body', 'payload', 'definitions', 0, 'test_type']);

    const huge = {
      version: 1,
      definitions: Array.from({ length: 4000 }, (_, i) => ({ ...auto, column_name: `c${i}` })),
    };
    const tooLarge = await importInto(http, PROD, cfg, huge);
    assert.equal(tooLarge.status, 413);

    const notJson = await http.request('POST', `/api/v1/test-suites/${PROD}/test-definition-import`, {
      token: await http.token(),
      raw: 'config=1',
      contentType: 'text/plain',
    });
    assert.equal(notJson.status, 415);

    const viewer = await importInto(http, PROD, cfg, { definitions: [] }, 'viewer');
    assert.equal(viewer.status, 403);
    const viewerPreview = await importInto(http, PROD, { ...cfg, mode: 'preview' }, { definitions: [] }, 'viewer');
    assert.equal(viewerPreview.status, 200);

    assert.deepEqual(sim.controls.definitions(PROD), before);
  });
});
