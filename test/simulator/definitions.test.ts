import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { SEED_IDS, defaultSeed, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/index.js';
import { startTestSimulator, type SimHttp } from '../helpers/sim.js';

const { salesDev: DEV, salesProd: PROD, financeProd: FIN } = SEED_IDS.testSuites;
const X = SEED_IDS.externalIds;
type Config = { mode: string; on_match: string; on_new: string; on_absence: string };
const PRESETS: Record<string, Omit<Config, 'mode'>> = {
  upsert: { on_match: 'overwrite_unlocked', on_new: 'create', on_absence: 'do_nothing' },
  promotion: { on_match: 'overwrite_unlocked', on_new: 'create_and_lock', on_absence: 'do_nothing' },
  bulk_calibration: { on_match: 'overwrite_unlocked', on_new: 'skip', on_absence: 'do_nothing' },
  insert_only: { on_match: 'skip', on_new: 'create', on_absence: 'do_nothing' },
  clone_or_sync: { on_match: 'overwrite_all', on_new: 'create', on_absence: 'delete_all' },
};

const sims: RunningSimulator[] = [];
async function fresh(options: SimulatorOptions = {}): Promise<{ sim: RunningSimulator; http: SimHttp }> {
  const s = await startTestSimulator(options);
  sims.push(s.sim);
  return s;
}
after(async () => {
  await Promise.all(sims.map((s) => s.close()));
});

const exportFile = async (http: SimHttp, suite: string, query = '') => {
  const res = await http.as('admin', 'GET', `/api/v1/test-suites/${suite}/test-definition-export${query}`);
  assert.equal(res.status, 200, res.text);
  return res.body;
};
const importInto = (
  http: SimHttp,
  suite: string,
  config: Config,
  payload: unknown,
  user: 'admin' | 'viewer' = 'admin',
) => http.as(user, 'POST', `/api/v1/test-suites/${suite}/test-definition-import`, { config, payload });
const groups = (items: { action: string; reason: string; tds: unknown[] }[]) =>
  Object.fromEntries(items.map((i) => [`${i.action}/${i.reason}`, i.tds.length]));

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

describe('import: the common configurations on a realistic pair of suites', () => {
  const expected: Record<string, { summary: Record<string, number>; groups: Record<string, number> }> = {
    upsert: {
      summary: { created: 3, updated: 3, skipped: 3, deleted: 0 },
      groups: { 'create/no_match': 3, 'update/matched': 3, 'skip/locked': 2, 'skip/invalid_table': 1 },
    },
    promotion: {
      summary: { created: 3, updated: 3, skipped: 3, deleted: 0 },
      groups: { 'create/no_match': 3, 'update/matched': 3, 'skip/locked': 2, 'skip/invalid_table': 1 },
    },
    bulk_calibration: {
      summary: { created: 0, updated: 3, skipped: 6, deleted: 0 },
      groups: { 'update/matched': 3, 'skip/locked': 2, 'skip/no_match': 3, 'skip/invalid_table': 1 },
    },
    insert_only: {
      summary: { created: 3, updated: 0, skipped: 6, deleted: 0 },
      groups: { 'create/no_match': 3, 'skip/policy': 5, 'skip/invalid_table': 1 },
    },
    clone_or_sync: {
      summary: { created: 3, updated: 5, skipped: 1, deleted: 3 },
      groups: { 'create/no_match': 3, 'update/matched': 5, 'skip/invalid_table': 1, 'delete/absent': 3 },
    },
  };
  for (const [preset, want] of Object.entries(expected)) {
    test(`${preset}: preview and apply give the exact counts, and apply changes the target accordingly`, async () => {
      const { http, sim } = await fresh();
      const file = await exportFile(http, DEV);
      const before = sim.controls.definitions(PROD);
      const preview = await importInto(http, PROD, { mode: 'preview', ...PRESETS[preset]! }, file);
      assert.equal(preview.status, 200);
      assert.deepEqual(preview.body.summary, want.summary);
      assert.deepEqual(groups(preview.body.items), want.groups);
      assert.deepEqual(sim.controls.definitions(PROD), before, 'preview changes nothing');
      const applied = await importInto(http, PROD, { mode: 'apply', ...PRESETS[preset]! }, file);
      assert.equal(applied.status, 200);
      assert.deepEqual(applied.body.summary, want.summary);
      assert.deepEqual(groups(applied.body.items), want.groups);
      const after = sim.controls.definitions(PROD);
      assert.equal(after.length, before.length + want.summary.created! - want.summary.deleted!);
      if (preset === 'promotion') {
        const created = after.filter((d) => !before.some((b) => b.id === d.id));
        assert.deepEqual(
          created.map((d) => [d.test_type, d.lock_refresh ?? false]).sort(),
          [
            ['Avg_Shift', true],
            ['Email_Format', false],
            ['Recency', true],
          ],
          'create_and_lock locks auto-generated definitions only',
        );
      }
      if (preset === 'upsert') {
        const created = after.filter((d) => !before.some((b) => b.id === d.id));
        assert.ok(
          created.every((d) => d.lock_refresh === undefined),
          'create keeps the lock state of the file',
        );
      }
    });
  }

  test('locked definitions are kept under overwrite_unlocked and delete_unlocked', async () => {
    const { http, sim } = await fresh();
    const file = await exportFile(http, DEV);
    const res = await importInto(
      http,
      PROD,
      { mode: 'apply', on_match: 'overwrite_unlocked', on_new: 'skip', on_absence: 'delete_unlocked' },
      file,
    );
    assert.equal(res.status, 200);
    const after = sim.controls.definitions(PROD);
    assert.equal(
      after.find((d) => d.test_type === 'Missing_Pct')?.threshold_value,
      '0.05',
      'locked match not overwritten',
    );
    assert.equal(
      after.find((d) => d.external_id === X.zipRule)?.threshold_value,
      '10',
      'locked manual not overwritten',
    );
    assert.ok(
      after.some((d) => d.test_type === 'Email_Format' && d.lock_refresh === true),
      'locked absent kept',
    );
    assert.ok(!after.some((d) => d.test_type === 'Future_Date'), 'unlocked absent deleted');
    assert.ok(!after.some((d) => d.external_id === X.zipValid), 'unlocked manual absent deleted');
    assert.deepEqual(groups(res.body.items)['delete/absent'], 2);
  });
});

describe('import: every action and reason, with the idx and target_id rules', () => {
  test('invalid_test_type and missing_external_id (whatever on_new says), in a file written by hand', async () => {
    const { http } = await fresh();
    const payload = {
      version: 1,
      source: { project_code: 'DEMO', test_suite: 'hand-written', exported_at: '2026-11-01T00:00:00Z' },
      definitions: [
        {
          test_type: 'Bogus_Type',
          table_name: 'orders',
          column_name: 'id',
          last_auto_gen_date: '2026-10-01T00:00:00Z',
        },
        { test_type: 'Required', table_name: 'orders', column_name: 'status' },
        {
          test_type: 'Required',
          table_name: 'orders',
          column_name: 'amount',
          external_id: 'c3000000-0000-4000-8000-0000000000aa',
        },
      ],
    };
    for (const on_new of ['create', 'create_and_lock', 'skip']) {
      const res = await importInto(
        http,
        PROD,
        { mode: 'preview', on_match: 'skip', on_new, on_absence: 'do_nothing' },
        payload,
      );
      const missing = res.body.items.find((i: { reason: string }) => i.reason === 'missing_external_id');
      assert.deepEqual(missing.tds, [{ idx: 1, target_id: null }], on_new);
      const invalid = res.body.items.find((i: { reason: string }) => i.reason === 'invalid_test_type');
      assert.deepEqual(invalid.tds, [{ idx: 0, target_id: null }]);
    }
  });

  test("TestGen's reasons: managed_test_type, invalid_column, missing_required_field; a table-level test needs no column", async () => {
    const { http } = await fresh({
      seed: { ...defaultSeed, managed_test_types: ['Row_Ct'], required_fields: { Pattern_Match: ['baseline_value'] } },
    });
    const auto = { last_auto_gen_date: '2026-10-01T00:00:00Z' };
    const payload = {
      version: 1,
      definitions: [
        { test_type: 'Row_Ct', table_name: 'orders', ...auto },
        { test_type: 'Required', table_name: 'orders', column_name: 'no_such_column', ...auto },
        { test_type: 'Pattern_Match', table_name: 'orders', column_name: 'status', ...auto },
        { test_type: 'Pattern_Match', table_name: 'orders', column_name: 'id', baseline_value: '^[0-9]+$', ...auto },
        { test_type: 'Daily_Record_Ct', table_name: 'orders', ...auto },
      ],
    };
    const res = await importInto(http, PROD, { mode: 'preview', ...PRESETS.upsert! }, payload);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.items.map((i: { action: string; reason: string; tds: { idx: number }[] }) => [
        i.action,
        i.reason,
        i.tds.map((t) => t.idx),
      ]),
      [
        ['create', 'no_match', [3, 4]],
        ['skip', 'managed_test_type', [0]],
        ['skip', 'invalid_column', [1]],
        ['skip', 'missing_required_field', [2]],
      ],
    );
  });

  test('matching comes first: a definition skipped as invalid still protects its target from clone_or_sync deletes', async () => {
    const { http, sim } = await fresh();
    const file = await exportFile(http, PROD);
    const manual = file.definitions.findIndex((d: Record<string, unknown>) => !d.last_auto_gen_date && d.external_id);
    assert.ok(manual >= 0, 'the seed suite has a manual definition');
    const target = sim.controls.definitions(PROD).find((d) => d.external_id === file.definitions[manual].external_id);
    file.definitions[manual] = { ...file.definitions[manual], column_name: 'no_such_column' };
    const before = sim.controls.definitions(PROD).length;
    const res = await importInto(http, PROD, { mode: 'apply', ...PRESETS.clone_or_sync! }, file);
    assert.equal(res.status, 200, res.text);
    const invalid = res.body.items.find((i: { reason: string }) => i.reason === 'invalid_column');
    assert.deepEqual(invalid.tds, [{ idx: manual, target_id: target?.id }], 'skipped, with the target it matched');
    assert.equal(res.body.summary.deleted, 0, 'nothing is absent: every target matched a file definition');
    assert.equal(sim.controls.definitions(PROD).length, before);
    assert.ok(
      sim.controls.definitions(PROD).some((d) => d.id === target?.id),
      'the target survives',
    );
  });

  test('items are grouped in order; creates have no target_id in preview and a new one when applied; deletes have idx null', async () => {
    const { http, sim } = await fresh();
    const file = await exportFile(http, DEV);
    const cfg = { on_match: 'skip', on_new: 'create', on_absence: 'delete_all' };
    const preview = await importInto(http, PROD, { mode: 'preview', ...cfg }, file);
    assert.deepEqual(
      preview.body.items.map((i: { action: string; reason: string }) => `${i.action}/${i.reason}`),
      ['create/no_match', 'skip/policy', 'skip/invalid_table', 'delete/absent'],
    );
    const creates = preview.body.items[0].tds;
    assert.deepEqual(creates, [
      { idx: 3, target_id: null },
      { idx: 4, target_id: null },
      { idx: 7, target_id: null },
    ]);
    const prodIds = new Map(sim.controls.definitions(PROD).map((d) => [d.test_type + ':' + d.column_name, d.id]));
    assert.deepEqual(preview.body.items[1].tds[0], { idx: 0, target_id: prodIds.get('Unique:id') });
    const deletes = preview.body.items[3].tds;
    assert.ok(deletes.every((t: { idx: null }) => t.idx === null));
    assert.deepEqual(
      deletes.map((t: { target_id: string }) => t.target_id).sort(),
      [
        prodIds.get('Future_Date:order_date'),
        prodIds.get('Email_Format:email'),
        prodIds.get('Valid_US_Zip:zip'),
      ].sort(),
    );
    const applied = await importInto(http, PROD, { mode: 'apply', ...cfg }, file);
    const createdIds = applied.body.items[0].tds.map((t: { target_id: string }) => t.target_id);
    assert.equal(createdIds.length, 3);
    const now = new Set(sim.controls.definitions(PROD).map((d) => d.id));
    assert.ok(
      createdIds.every((id: string) => now.has(id)),
      'applied creates name their new definitions',
    );
  });
});

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
