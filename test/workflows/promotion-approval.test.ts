/**
 * A promotion's approval: the preview it waits on, a stale or refused approval, a rejection, a timeout, a cancel while
 * waiting, and an approval that comes after the target changed (other counts, or the same counts over other content).
 * Time-skipping server, a simulator per test (a promotion changes its target suite).
 */
import assert from 'node:assert/strict';
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
  type PromoteTestDefinitionsResult,
} from '../../src/contract/index.js';
import { PRESETS } from '../../src/contract/presets.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { executeOnProjectWorker, withFreshSimulator, withProjectWorker } from '../helpers/activities.js';
import { cli } from '../helpers/cli.js';
import { clientFor } from '../helpers/sim.js';
import { startTimeSkippingEnv, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const { salesDev: DEV, salesProd: PROD } = SEED_IDS.testSuites;

describe('promoteTestDefinitions: approval', () => {
  let t: TestEnv;
  before(async () => {
    t = await startTimeSkippingEnv();
  });
  after(async () => t?.env.teardown());
  /** A promotion from DEV to PROD with `preset`, on the worker of `taskQueue`. */
  const startPromotion = (taskQueue: string, name: string, preset: string) =>
    t.env.client.workflow.start('dataops.promoteTestDefinitions', {
      taskQueue,
      workflowId: `${name}-${taskQueue}`,
      args: [{ source: { testSuiteId: DEV }, targetTestSuiteId: PROD, preset }],
    });

  test('approve: the preview is queryable while waiting; a stale approval is refused; the right one applies', async () => {
    await withFreshSimulator(async (sim, deps) => {
      const before = sim.controls.definitions(PROD);
      await withProjectWorker(t.env, deps, async (taskQueue) => {
        const handle = await startPromotion(taskQueue, 'approve', 'promotion');
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
    await withFreshSimulator(async (sim, deps) => {
      const before = sim.controls.definitions(PROD);
      const result = await withProjectWorker(t.env, deps, async (taskQueue) => {
        const handle = await startPromotion(taskQueue, 'reject', 'clone_or_sync');
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

  test('an approval that comes after the target changed is not applied blindly: a new preview is approved again', async () => {
    await withFreshSimulator(async (sim, deps) => {
      await withProjectWorker(t.env, deps, async (taskQueue) => {
        const handle = await startPromotion(taskQueue, 'changed', 'promotion');
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
    // Every preview's items go to the claim-check store: only their reference is in history.
    await withFreshSimulator(
      async (sim, deps) => {
        await withProjectWorker(t.env, deps, async (taskQueue) => {
          const handle = await startPromotion(taskQueue, 'bound', 'promotion');
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
          await eventually(
            'asking again',
            async () => (await handle.query(progressQuery)).stage === 'awaiting approval',
          );
          assert.deepEqual(sim.controls.definitions(PROD), before, 'nothing applied on the approval of other content');
          await handle.executeUpdate(approveUpdate, { args: [{ previewId: second.previewId, by: 'bob' }] });
          const result = (await handle.result()) as PromoteTestDefinitionsResult;
          assert.equal(result.status, 'applied');
          assert.equal(result.previews, 3, 'first preview, the changed one, the unchanged re-check');
          assert.equal(result.decision?.by, 'bob');
        });
      },
      { inlineItemsMaxBytes: 1 },
    );
  });

  test('cancelling during the approval wait applies nothing', async () => {
    await withFreshSimulator(async (sim, deps) => {
      const before = sim.controls.definitions(PROD);
      await withProjectWorker(t.env, deps, async (taskQueue) => {
        const handle = await startPromotion(taskQueue, 'cancel', 'upsert');
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
});

/**
 * The one test that skips hours, on a server of its own. The Java time-skipping server holds its clock while any
 * workflow task or activity is outstanding, and never lets go of one that a terminate overtook or that waits on a queue
 * nobody polls any more: the submitter another test left keeping its answer wakes on its timer and holds it for good.
 */
describe('promoteTestDefinitions: approval timeout', () => {
  let t: TestEnv;
  before(async () => {
    t = await startTimeSkippingEnv();
  });
  after(async () => t?.env.teardown());

  test('an approval timeout ends the workflow with nothing applied', async () => {
    await withFreshSimulator(async (sim, deps) => {
      const before = sim.controls.definitions(PROD);
      const result = await executeOnProjectWorker<PromoteTestDefinitionsResult>(
        t.env,
        deps,
        'dataops.promoteTestDefinitions',
        {
          source: { testSuiteId: DEV },
          targetTestSuiteId: PROD,
          preset: 'upsert',
          approval: { required: true, timeoutMs: 6 * 3_600_000 },
        },
      );
      assert.equal(result.status, 'timed_out');
      assert.equal(result.decision?.decision, 'timed_out');
      assert.equal(result.applied, null);
      assert.deepEqual(sim.controls.definitions(PROD), before);
    });
  });
});
