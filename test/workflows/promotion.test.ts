import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import {
  type ExportTestDefinitionsResult,
  type PromoteTestDefinitionsInput,
  type PromoteTestDefinitionsResult,
} from '../../src/contract/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import type { ActivityDeps } from '../../src/activities/index.js';
import { executeOnProjectWorker, withFreshSimulator, withProjectWorker } from '../helpers/activities.js';
import { startTimeSkippingEnv, type TestEnv } from '../helpers/temporal.js';

const { salesDev: DEV, salesProd: PROD } = SEED_IDS.testSuites;
const X = SEED_IDS.externalIds;

describe('dataops.promoteTestDefinitions', () => {
  let t: TestEnv;
  before(async () => {
    t = await startTimeSkippingEnv();
  });
  after(async () => t?.env.teardown());

  const promote = (deps: ActivityDeps, input: PromoteTestDefinitionsInput) =>
    executeOnProjectWorker<PromoteTestDefinitionsResult>(t.env, deps, 'dataops.promoteTestDefinitions', input);
  const noApproval = { required: false };

  const EXPECTED: Record<string, [Record<string, number>, Record<string, number>]> = {
    upsert: [
      { created: 3, updated: 3, skipped: 3, deleted: 0 },
      { 'create/no_match': 3, 'update/matched': 3, 'skip/locked': 2, 'skip/invalid_table': 1 },
    ],
    promotion: [
      { created: 3, updated: 3, skipped: 3, deleted: 0 },
      { 'create/no_match': 3, 'update/matched': 3, 'skip/locked': 2, 'skip/invalid_table': 1 },
    ],
    bulk_calibration: [
      { created: 0, updated: 3, skipped: 6, deleted: 0 },
      { 'update/matched': 3, 'skip/locked': 2, 'skip/no_match': 3, 'skip/invalid_table': 1 },
    ],
    insert_only: [
      { created: 3, updated: 0, skipped: 6, deleted: 0 },
      { 'create/no_match': 3, 'skip/policy': 5, 'skip/invalid_table': 1 },
    ],
    clone_or_sync: [
      { created: 3, updated: 5, skipped: 1, deleted: 3 },
      { 'create/no_match': 3, 'update/matched': 5, 'skip/invalid_table': 1, 'delete/absent': 3 },
    ],
  };
  for (const [preset, [summary, counts]] of Object.entries(EXPECTED)) {
    test(`preset ${preset}: exact preview and applied counts, and the target changed accordingly`, async () => {
      await withFreshSimulator(async (sim, deps) => {
        const before = sim.controls.definitions(PROD).length;
        const r = await promote(deps, {
          source: { testSuiteId: DEV },
          targetTestSuiteId: PROD,
          preset: preset as never,
          approval: noApproval,
        });
        assert.equal(r.status, 'applied');
        assert.deepEqual(r.preview.summary, summary);
        assert.deepEqual(r.preview.counts, counts);
        assert.deepEqual(r.applied?.summary, summary);
        assert.equal(r.preview.export.definitions, 9);
        assert.equal(r.decision?.decision, 'not_required');
        assert.equal(sim.controls.definitions(PROD).length, before + summary.created! - summary.deleted!);
        assert.ok(
          r.diff.includes(
            `applied: ${summary.created} created, ${summary.updated} updated, ${summary.skipped} skipped, ${summary.deleted} deleted`,
          ),
        );
        assert.ok(r.diff.includes('preview: skip (invalid_table) 1'));
      });
    });
  }

  test('a strict rejection fails with StrictImportRejected carrying the import result; the target is unchanged', async () => {
    await withFreshSimulator(async (sim, deps) => {
      const before = sim.controls.definitions(PROD);
      const err = await promote(deps, {
        source: { testSuiteId: DEV },
        targetTestSuiteId: PROD,
        preset: 'upsert',
        mode: 'apply_strict',
        approval: noApproval,
      }).catch((e: unknown) => e);
      assert.ok(err instanceof WorkflowFailedError);
      assert.ok(err.cause instanceof ApplicationFailure);
      assert.equal(err.cause.type, 'StrictImportRejected');
      assert.equal(err.cause.nonRetryable, true);
      const details = err.cause.details?.[0] as { importResult: { summary: unknown; counts: Record<string, number> } };
      assert.deepEqual(details.importResult.summary, { created: 3, updated: 3, skipped: 3, deleted: 0 });
      assert.deepEqual(sim.controls.definitions(PROD), before);
    });
  });

  test('locked definitions are kept under overwrite_unlocked and delete_unlocked', async () => {
    await withFreshSimulator(async (sim, deps) => {
      const r = await promote(deps, {
        source: { testSuiteId: DEV },
        targetTestSuiteId: PROD,
        policy: { on_match: 'overwrite_unlocked', on_new: 'skip', on_absence: 'delete_unlocked' },
        approval: noApproval,
      });
      assert.deepEqual(r.applied?.counts, {
        'update/matched': 3,
        'skip/locked': 2,
        'skip/no_match': 3,
        'skip/invalid_table': 1,
        'delete/absent': 2,
      });
      const after = sim.controls.definitions(PROD);
      assert.equal(after.find((d) => d.test_type === 'Missing_Pct')?.threshold_value, '0.05');
      assert.equal(after.find((d) => d.external_id === X.zipRule)?.threshold_value, '10');
      assert.ok(after.some((d) => d.test_type === 'Email_Format' && d.lock_refresh === true));
      assert.ok(!after.some((d) => d.test_type === 'Future_Date'));
    });
  });

  test('manual definitions without an external_id are skipped as missing_external_id (a hand-written file)', async () => {
    await withFreshSimulator(async (sim, deps) => {
      const file = await deps.store!.putJson({
        version: 1,
        source: { project_code: 'DEMO', test_suite: 'hand-written', exported_at: '2026-11-01T00:00:00Z' },
        definitions: [
          { test_type: 'Required', table_name: 'orders', column_name: 'status' },
          {
            test_type: 'Required',
            table_name: 'orders',
            column_name: 'amount',
            external_id: 'c3000000-0000-4000-8000-0000000000bb',
          },
        ],
      });
      const r = await promote(deps, {
        source: { file },
        targetTestSuiteId: PROD,
        preset: 'upsert',
        approval: noApproval,
      });
      assert.deepEqual(r.applied?.counts, { 'skip/missing_external_id': 1, 'create/no_match': 1 });
      assert.deepEqual(r.applied?.items?.find((i) => i.reason === 'missing_external_id')?.tds, [
        { idx: 0, target_id: null },
      ]);
      assert.ok(sim.controls.definitions(PROD).some((d) => d.column_name === 'amount' && d.test_type === 'Required'));
    });
  });

  test('a round trip keeps unknown fields: clone, back up with exportTestDefinitions, restore from the backup', async () => {
    await withFreshSimulator(async (sim, deps) => {
      await promote(deps, {
        source: { testSuiteId: DEV },
        targetTestSuiteId: PROD,
        preset: 'clone_or_sync',
        approval: noApproval,
      });
      const backup = (await withProjectWorker(t.env, deps, (taskQueue) =>
        t.env.client.workflow.execute('dataops.exportTestDefinitions', {
          taskQueue,
          workflowId: `backup-${taskQueue}`,
          args: [{ testSuiteId: PROD, destination: 'backups/sales-prod.json' }],
        }),
      )) as ExportTestDefinitionsResult;
      assert.ok(backup.writtenTo?.endsWith('backups/sales-prod.json'));
      const written = JSON.parse(readFileSync(backup.writtenTo!, 'utf8')) as { definitions: Record<string, unknown>[] };
      assert.equal(written.definitions.length, backup.definitions);
      assert.deepEqual(written.definitions.find((d) => d.external_id === X.orderStatus)?.custom_metadata, {
        owner: 'sales-data-team',
        ticket: 'DQ-412',
      });
      // wipe a field in production, then restore from the backup
      const restored = await promote(deps, {
        source: { file: backup.file },
        targetTestSuiteId: PROD,
        preset: 'clone_or_sync',
        approval: noApproval,
      });
      assert.equal(restored.applied?.summary.deleted, 0);
      const custom = sim.controls.definitions(PROD).find((d) => d.external_id === X.orderStatus);
      assert.deepEqual(custom?.custom_metadata, { owner: 'sales-data-team', ticket: 'DQ-412' });
      assert.equal(sim.controls.definitions(PROD).find((d) => d.test_type === 'Avg_Shift')?.baseline_sd, '12.7');
    });
  });

  test('the export destination must stay inside the export directory', async () => {
    await withFreshSimulator(async (_sim, deps) => {
      const err = await withProjectWorker(t.env, deps, (taskQueue) =>
        t.env.client.workflow.execute('dataops.exportTestDefinitions', {
          taskQueue,
          workflowId: `escape-${taskQueue}`,
          args: [{ testSuiteId: PROD, destination: '../../etc/passwd.json' }],
        }),
      ).catch((e: unknown) => e);
      assert.ok(err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure);
      assert.equal(err.cause.type, 'InvalidInput');
      assert.match(err.cause.message, /destination: a relative path ending in \.json, without \.\./);
    });
  });
});
