/**
 * The simulator's test-definition import: the common configurations, and every action and reason with its idx and
 * target_id rules.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defaultSeed } from '../../src/simulator/index.js';
import { DEV, PROD, X, exportFile, importInto, groups, PRESETS, freshSimulators } from '../helpers/definitions.js';

const fresh = freshSimulators();

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
