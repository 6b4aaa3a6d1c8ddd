import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import {
  ApplicationFailure,
  CancelledFailure,
  WorkflowFailedError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import {
  approveUpdate,
  previewQuery,
  progressQuery,
  rejectUpdate,
  type ExportTestDefinitionsResult,
  type PromoteTestDefinitionsInput,
  type PromoteTestDefinitionsResult,
} from '../../src/contract/index.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { PRESETS } from '../../src/contract/presets.js';
import type { ActivityDeps } from '../../src/activities/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { clientFor, startTestSimulator } from '../helpers/sim.js';
import { startTimeSkippingEnv, type TestEnv } from '../helpers/temporal.js';
import { cli } from '../helpers/cli.js';
import { eventually } from '../helpers/wait.js';

const { salesDev: DEV, salesProd: PROD } = SEED_IDS.testSuites;
const X = SEED_IDS.externalIds;

describe('promoteTestDefinitions', () => {
  let t: TestEnv;
  before(async () => {
    t = await startTimeSkippingEnv();
  });
  after(async () => t?.env.teardown());

  /** A fresh simulator per test: promotions change the target suite. */
  async function withSim<T>(fn: (sim: RunningSimulator, deps: ActivityDeps) => Promise<T>): Promise<T> {
    const { sim } = await startTestSimulator();
    try {
      return await fn(sim, await simDeps(sim));
    } finally {
      await sim.close();
    }
  }
  const promote = (deps: ActivityDeps, input: PromoteTestDefinitionsInput) =>
    withProjectWorker(t.env, deps, (taskQueue) =>
      t.env.client.workflow.execute('promoteTestDefinitions', {
        taskQueue,
        workflowId: `promote-${taskQueue}`,
        args: [input],
      }),
    ) as Promise<PromoteTestDefinitionsResult>;
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
      await withSim(async (sim, deps) => {
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

  test('approve: the preview is queryable while waiting; a stale approval is refused; the right one applies', async () => {
    await withSim(async (sim, deps) => {
      const before = sim.controls.definitions(PROD);
      await withProjectWorker(t.env, deps, async (taskQueue) => {
        const handle = await t.env.client.workflow.start('promoteTestDefinitions', {
          taskQueue,
          workflowId: `approve-${taskQueue}`,
          args: [{ source: { testSuiteId: DEV }, targetTestSuiteId: PROD, preset: 'promotion' }],
        });
        const preview = await eventually('the preview', () => handle.query(previewQuery));
        assert.deepEqual(preview.summary, { created: 3, updated: 3, skipped: 3, deleted: 0 });
        assert.equal(preview.items?.length, 4);
        assert.deepEqual(sim.controls.definitions(PROD), before, 'nothing applied while waiting');
        const stale = await handle
          .executeUpdate(approveUpdate, { args: [{ previewId: 'some-other-preview', by: 'mallory' }] })
          .catch((e: unknown) => e);
        assert.ok(stale instanceof WorkflowUpdateFailedError, String(stale));
        assert.ok(stale.cause instanceof ApplicationFailure, 'a named failure callers can match');
        assert.equal(stale.cause.type, 'StalePreview');
        assert.equal(stale.cause.nonRetryable, true, 'sending the same approval again cannot help');
        assert.match(stale.cause.message, /stale approval: it names preview some-other-preview/);
        // The CLI says why, not just "Workflow Update failed".
        const refused = await cli(['approve', handle.workflowId, '--preview-id', 'some-other-preview'], {
          TEMPORAL_ADDRESS: t.env.connection.options.address,
          TEMPORAL_TASK_QUEUE: taskQueue,
        });
        assert.equal(refused.code, 7, `a refused update, the promotion goes on: ${refused.err}`);
        assert.match(
          refused.err,
          /^refused: StalePreview: stale approval: it names preview some-other-preview.*\(retryable: false\)$/m,
        );
        const ack = await handle.executeUpdate(approveUpdate, {
          args: [{ previewId: preview.previewId, by: 'alice', comment: 'reviewed' }],
        });
        assert.deepEqual(ack, { decision: 'approved', previewId: preview.previewId });
        const result = (await handle.result()) as PromoteTestDefinitionsResult;
        assert.equal(result.status, 'applied');
        assert.deepEqual(
          [result.decision?.decision, result.decision?.by, result.decision?.comment],
          ['approved', 'alice', 'reviewed'],
        );
        assert.equal(sim.controls.definitions(PROD).length, before.length + 3);
      });
    });
  });

  test('reject: nothing is applied and the result says so', async () => {
    await withSim(async (sim, deps) => {
      const before = sim.controls.definitions(PROD);
      const result = await withProjectWorker(t.env, deps, async (taskQueue) => {
        const handle = await t.env.client.workflow.start('promoteTestDefinitions', {
          taskQueue,
          workflowId: `reject-${taskQueue}`,
          args: [{ source: { testSuiteId: DEV }, targetTestSuiteId: PROD, preset: 'clone_or_sync' }],
        });
        await eventually('the preview', () => handle.query(previewQuery));
        await handle.executeUpdate(rejectUpdate, { args: [{ reason: 'deletes three production tests', by: 'bob' }] });
        return (await handle.result()) as PromoteTestDefinitionsResult;
      });
      assert.equal(result.status, 'rejected');
      assert.equal(result.applied, null);
      assert.deepEqual(
        [result.decision?.decision, result.decision?.comment],
        ['rejected', 'deletes three production tests'],
      );
      assert.deepEqual(sim.controls.definitions(PROD), before);
    });
  });

  test('an approval timeout ends the workflow with nothing applied', async () => {
    await withSim(async (sim, deps) => {
      const before = sim.controls.definitions(PROD);
      const result = await promote(deps, {
        source: { testSuiteId: DEV },
        targetTestSuiteId: PROD,
        preset: 'upsert',
        approval: { required: true, timeoutMs: 6 * 3_600_000 },
      });
      assert.equal(result.status, 'timed_out');
      assert.equal(result.decision?.decision, 'timed_out');
      assert.equal(result.applied, null);
      assert.deepEqual(sim.controls.definitions(PROD), before);
    });
  });

  test('an approval that comes after the target changed is not applied blindly: a new preview is approved again', async () => {
    await withSim(async (sim, deps) => {
      await withProjectWorker(t.env, deps, async (taskQueue) => {
        const handle = await t.env.client.workflow.start('promoteTestDefinitions', {
          taskQueue,
          workflowId: `changed-${taskQueue}`,
          args: [{ source: { testSuiteId: DEV }, targetTestSuiteId: PROD, preset: 'promotion' }],
        });
        const first = await eventually('the preview', () => handle.query(previewQuery));
        assert.equal(first.summary.created, 3);
        // Meanwhile someone else adds the new definitions to the target.
        const other = await clientFor(sim);
        await other.testDefinitions.import(
          PROD,
          { mode: 'apply', on_match: 'skip', on_new: 'create', on_absence: 'do_nothing' },
          await other.testDefinitions.export(DEV, { origin: 'both' }),
        );
        const afterOther = sim.controls.definitions(PROD).length;
        await handle.executeUpdate(approveUpdate, { args: [{ previewId: first.previewId, by: 'alice' }] });
        const second = await eventually('a new preview', async () => {
          const p = await handle.query(previewQuery);
          return p && p.previewId !== first.previewId ? p : undefined;
        });
        assert.equal(second.summary.created, 0, 'the fresh preview shows what the approver has not seen');
        await eventually('asking again', async () => (await handle.query(progressQuery)).stage === 'awaiting approval');
        assert.equal(sim.controls.definitions(PROD).length, afterOther, 'nothing applied on the stale approval');
        const stale = await handle
          .executeUpdate(approveUpdate, { args: [{ previewId: first.previewId, by: 'alice' }] })
          .catch((e: unknown) => e);
        assert.ok(stale instanceof WorkflowUpdateFailedError && stale.cause instanceof ApplicationFailure);
        assert.equal(stale.cause.type, 'StalePreview');
        await handle.executeUpdate(approveUpdate, { args: [{ previewId: second.previewId, by: 'bob' }] });
        const result = (await handle.result()) as PromoteTestDefinitionsResult;
        assert.equal(result.status, 'applied');
        assert.equal(result.previews, 3, 'first preview, the changed one, the unchanged re-check');
        assert.equal(result.preview.previewId, second.previewId);
        assert.equal(result.decision?.by, 'bob');
        assert.equal(result.applied?.summary.created, 0);
        assert.equal(result.applied?.reconciled, false);
      });
    });
  });

  test('an approval binds the content it saw: a preview stored by reference with equal counts but other items is approved again', async () => {
    const { sim } = await startTestSimulator();
    try {
      // Every preview's items go to the claim-check store: only their reference is in history.
      const deps = await simDeps(sim, { inlineItemsMaxBytes: 1 });
      await withProjectWorker(t.env, deps, async (taskQueue) => {
        const handle = await t.env.client.workflow.start('promoteTestDefinitions', {
          taskQueue,
          workflowId: `bound-${taskQueue}`,
          args: [{ source: { testSuiteId: DEV }, targetTestSuiteId: PROD, preset: 'promotion' }],
        });
        const first = await eventually('the preview', () => handle.query(previewQuery));
        assert.equal(first.items, null, 'stored by reference');
        assert.ok(first.itemsRef);
        // Meanwhile someone unlocks one locked target definition and locks one that was to be updated: the counts
        // stay the same (3 updated, 2 skipped as locked), but other definitions would be overwritten.
        const other = await clientFor(sim);
        const seen = await other.testDefinitions.import(
          PROD,
          { mode: 'preview', ...PRESETS.promotion },
          await other.testDefinitions.export(DEV, { origin: 'both' }),
        );
        const target = (action: string, reason: string) =>
          seen.items.find((i) => i.action === action && i.reason === reason)?.tds[0]?.target_id ?? '';
        sim.controls.editDefinition(PROD, target('skip', 'locked'), { lock_refresh: false });
        sim.controls.editDefinition(PROD, target('update', 'matched'), { lock_refresh: true });
        const before = sim.controls.definitions(PROD);
        await handle.executeUpdate(approveUpdate, { args: [{ previewId: first.previewId, by: 'alice' }] });
        const second = await eventually('a new preview', async () => {
          const p = await handle.query(previewQuery);
          return p && p.previewId !== first.previewId ? p : undefined;
        });
        assert.deepEqual([second.summary, second.counts], [first.summary, first.counts], 'the same counts');
        assert.notEqual(second.itemsRef?.sha256, first.itemsRef?.sha256, 'other items');
        await eventually('asking again', async () => (await handle.query(progressQuery)).stage === 'awaiting approval');
        assert.deepEqual(sim.controls.definitions(PROD), before, 'nothing applied on the approval of other content');
        await handle.executeUpdate(approveUpdate, { args: [{ previewId: second.previewId, by: 'bob' }] });
        const result = (await handle.result()) as PromoteTestDefinitionsResult;
        assert.equal(result.status, 'applied');
        assert.equal(result.previews, 3, 'first preview, the changed one, the unchanged re-check');
        assert.equal(result.decision?.by, 'bob');
      });
    } finally {
      await sim.close();
    }
  });

  test('cancelling during the approval wait applies nothing', async () => {
    await withSim(async (sim, deps) => {
      const before = sim.controls.definitions(PROD);
      await withProjectWorker(t.env, deps, async (taskQueue) => {
        const handle = await t.env.client.workflow.start('promoteTestDefinitions', {
          taskQueue,
          workflowId: `cancel-${taskQueue}`,
          args: [{ source: { testSuiteId: DEV }, targetTestSuiteId: PROD, preset: 'upsert' }],
        });
        await eventually('the preview', () => handle.query(previewQuery));
        await handle.cancel();
        const err = await handle.result().catch((e: unknown) => e);
        assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure);
      });
      assert.deepEqual(sim.controls.definitions(PROD), before);
      assert.equal(
        sim.controls.requests().filter((r) => r.path.endsWith('/test-definition-import')).length,
        1,
        'only the preview',
      );
    });
  });

  test('a strict rejection fails with StrictImportRejected carrying the import result; the target is unchanged', async () => {
    await withSim(async (sim, deps) => {
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
    await withSim(async (sim, deps) => {
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
    await withSim(async (sim, deps) => {
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
    await withSim(async (sim, deps) => {
      await promote(deps, {
        source: { testSuiteId: DEV },
        targetTestSuiteId: PROD,
        preset: 'clone_or_sync',
        approval: noApproval,
      });
      const backup = (await withProjectWorker(t.env, deps, (taskQueue) =>
        t.env.client.workflow.execute('exportTestDefinitions', {
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
    await withSim(async (_sim, deps) => {
      const err = await withProjectWorker(t.env, deps, (taskQueue) =>
        t.env.client.workflow.execute('exportTestDefinitions', {
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
