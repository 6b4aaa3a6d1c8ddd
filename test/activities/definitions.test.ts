import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { activityFunctions, LocalDirectoryBlobStore, type ActivityDeps } from '../../src/activities/index.js';
import { importWrites } from '../../src/activities/apply.js';
import { activityContext } from '../../src/activities/context.js';
import type { Phase, Prior } from '../../src/exactly-once/index.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import type { BlobRef, ImportOutcome } from '../../src/contract/index.js';
import { simDeps } from '../helpers/activities.js';
import { batchEnvironment, run, runIn } from '../helpers/mock-activity.js';
import { clientFor, faultHits, startTestSimulator } from '../helpers/sim.js';
import { eventually } from '../helpers/wait.js';

const TS = SEED_IDS.testSuites;
const UPSERT = { mode: 'apply', on_match: 'overwrite_unlocked', on_new: 'create', on_absence: 'do_nothing' } as const;

/** Applies as its suite's submitter's batch does (send-in-turn.ts), after `prior`; `phases` collects what it records. */
const applying =
  (d: ActivityDeps) =>
  (input: Record<string, unknown>, prior: Prior<unknown> = { mayHaveSent: false }, phases: Phase<unknown>[] = []) =>
    runIn(
      batchEnvironment(),
      async () =>
        (await importWrites(activityContext(d)).applySender(input, {
          prior,
          record: async (phase) => void phases.push(phase),
        })) as ImportOutcome,
    );

/**
 * What each apply test starts from: a simulator of its own, the sales dev suite exported, and the preview of its
 * upsert into sales prod (`expected`), with the definitions sales prod had before (`before`).
 */
async function withApply(
  extra: Partial<ActivityDeps>,
  fn: (a: {
    own: RunningSimulator;
    acts: ReturnType<typeof activityFunctions>;
    apply: ReturnType<typeof applying>;
    input: { testSuiteId: string; config: typeof UPSERT; file: BlobRef };
    preview: ImportOutcome;
    expected: { summary: ImportOutcome['summary']; counts: ImportOutcome['counts'] };
    before: number;
  }) => Promise<void>,
): Promise<void> {
  const { sim: own } = await startTestSimulator();
  try {
    const d = await simDeps(own, extra);
    const acts = activityFunctions(d);
    const exported = await run(acts.exportTestDefinitions, { testSuiteId: TS.salesDev, filters: { origin: 'both' } });
    const input = { testSuiteId: TS.salesProd, config: UPSERT, file: exported.file };
    const preview = await run(acts.importTestDefinitions, { ...input, config: { ...UPSERT, mode: 'preview' } });
    const expected = { summary: preview.summary, counts: preview.counts };
    await fn({
      own,
      acts,
      apply: applying(d),
      input,
      preview,
      expected,
      before: own.controls.definitions(TS.salesProd).length,
    });
  } finally {
    await own.close();
  }
}

describe('test-definition activities', () => {
  let sim: RunningSimulator;
  let deps: ActivityDeps;
  before(async () => {
    ({ sim } = await startTestSimulator());
    deps = await simDeps(sim);
  });
  after(async () => sim?.close());

  test('export stores the file by claim check; import reads it back and returns a small outcome', async () => {
    const acts = activityFunctions(deps);
    const exported = await run(acts.exportTestDefinitions, { testSuiteId: TS.salesDev, filters: { origin: 'both' } });
    assert.equal(exported.definitions, 9);
    assert.equal(exported.version, 1);
    assert.match(exported.file.ref, /^local:sha256-[0-9a-f]{64}\.json\.gz$/);
    const file = (await deps.store!.getJson(exported.file)) as { definitions: unknown[] };
    assert.equal(file.definitions.length, 9);
    const preview = await run(acts.importTestDefinitions, {
      testSuiteId: TS.salesProd,
      config: { ...UPSERT, mode: 'preview' },
      file: exported.file,
    });
    assert.deepEqual(preview.summary, { created: 3, updated: 3, skipped: 3, deleted: 0 });
    assert.deepEqual(preview.counts, {
      'create/no_match': 3,
      'update/matched': 3,
      'skip/locked': 2,
      'skip/invalid_table': 1,
    });
    assert.equal(preview.items?.length, 4);
    assert.equal(preview.itemsRef, null);
  });

  test("an apply whose answer was lost is not sent again: a fresh preview shows it landed; the counts are the preview's", async () => {
    await withApply({}, async ({ own, apply, input, preview, expected, before }) => {
      // The send whose answer is lost looks itself, once the held request could no longer commit.
      own.controls.addFault({ kind: 'drop_after_commit', method: 'POST', path: 'test-definition-import' });
      const phases: Phase<unknown>[] = [];
      const out = await apply({ ...input, expected }, undefined, phases);
      assert.equal(out.reconciled, true);
      assert.deepEqual(out.summary, preview.summary, 'what the lost apply did, not "created 0, updated 6"');
      assert.equal(own.controls.definitions(TS.salesProd).length, before + 3, 'applied once');
      assert.deepEqual(
        phases.map((p) => p.phase),
        ['sending'],
        'its send recorded (at the submitter) before it left',
      );

      // A retried batch whose attempt died after the send the submitter recorded (the apply landed): found, not
      // applied again.
      const sent = phases[0] as Extract<Phase<unknown>, { phase: 'sending' }>;
      const again = await apply({ ...input, expected }, { mayHaveSent: true, sending: sent });
      assert.equal(again.reconciled, true);
      assert.deepEqual(again.summary, preview.summary);
      assert.equal(own.controls.definitions(TS.salesProd).length, before + 3, 'not applied twice');
    });
  });

  test('an apply that failed before it left (its token could not be renewed) records a refusal; sent again, it applies at once', async () => {
    await withApply({}, async ({ own, apply, input, preview, expected, before }) => {
      const imports = () => own.controls.requests().filter((r) => r.path.endsWith('/test-definition-import')).length;

      // The session expires and the login that would renew it fails: the apply is refused with a 401 and never resent.
      own.controls.expireTokens();
      own.controls.addFault({ kind: 'status', status: 503, method: 'POST', path: '/v2/login', count: 5 });
      const phases: Phase<unknown>[] = [];
      const failed = await apply({ ...input, expected }, undefined, phases).catch((e: unknown) => e);
      assert.ok(failed instanceof ApplicationFailure && !failed.nonRetryable, String(failed));
      assert.equal(own.controls.definitions(TS.salesProd).length, before, 'nothing applied');
      assert.equal(phases.at(-1)?.phase, 'rejected', 'certain: the apply never reached the service');

      // The batch's next attempt trusts that refusal (send-in-turn.ts): nothing outstanding, no settle, no re-preview.
      own.controls.clearFaults();
      const sent = imports();
      const out = await apply({ ...input, expected });
      assert.equal(imports() - sent, 1, 'applied at once, with no preview to compare');
      assert.equal(out.reconciled, false);
      assert.equal(own.controls.definitions(TS.salesProd).length, before + preview.summary.created);
    });
  });

  test('an apply whose send got a 503 looks before it fails: nothing landed, so the next attempt applies, and says what it did', async () => {
    await withApply({}, async ({ own, apply, input, preview, expected, before }) => {
      own.controls.addFault({ kind: 'status', status: 503, method: 'POST', path: 'test-definition-import' });
      const phases: Phase<unknown>[] = [];
      const failed = await apply({ ...input, expected }, undefined, phases).catch((e: unknown) => e);
      assert.ok(failed instanceof ApplicationFailure && failed.type === 'ServerError', String(failed));
      assert.equal(own.controls.definitions(TS.salesProd).length, before, 'the 503 changed nothing');
      assert.equal(phases.at(-1)?.phase, 'rejected', 'settled: a fresh preview showed it did not land');

      const out = await apply({ ...input, expected });
      assert.equal(out.reconciled, false, 'the fresh preview matched the approved one, so the retry applied');
      assert.equal(out.summary.created, preview.summary.created);
      assert.equal(own.controls.definitions(TS.salesProd).length, before + preview.summary.created);
    });
  });

  test('a retried apply waits out the settle window from its recorded send: a held apply that commits meanwhile is found, not sent again', async () => {
    await withApply({ submitSettleMs: 2_500 }, async ({ own, apply, input, preview, expected, before }) => {
      // The batch that sent the apply died just after the submitter recorded its send: the service holds the request
      // for a second, then commits it. The retry has the approved preview and the send's time.
      const held = own.controls.addFault({
        kind: 'delay',
        delay_ms: 1_000,
        method: 'POST',
        path: 'test-definition-import',
      });
      const other = await clientFor(own);
      const file = await other.testDefinitions.export(TS.salesDev, { origin: 'both' });
      const sentAt = Date.now();
      const dead = other.testDefinitions.import(TS.salesProd, UPSERT, file).catch(() => undefined);
      await eventually('the apply held', async () => faultHits(own, held) === 1);
      const imports = () => own.controls.requests().filter((r) => r.path.endsWith('test-definition-import')).length;
      const sent = imports();
      const out = await apply({ ...input, expected }, { mayHaveSent: true, sending: { sentAt, mark: expected } });
      await dead;
      assert.equal(out.reconciled, true, 'found the held apply by a preview taken after it could commit');
      assert.deepEqual(out.summary, preview.summary);
      // Logged as they end: the held apply, then the retry's one preview. A second apply would be a third.
      assert.equal(imports() - sent, 2, 'the held apply and one preview; no second apply');
      assert.equal(own.controls.definitions(TS.salesProd).length, before + preview.summary.created);
    });
  });

  test('large import items go to the store instead of the result', async () => {
    const small = await simDeps(sim, { inlineItemsMaxBytes: 100 });
    const acts = activityFunctions(small);
    const exported = await run(acts.exportTestDefinitions, { testSuiteId: TS.salesDev });
    const outcome = await run(acts.importTestDefinitions, {
      testSuiteId: TS.salesProd,
      config: { ...UPSERT, mode: 'preview' },
      file: exported.file,
    });
    assert.equal(outcome.items, null);
    assert.ok(outcome.itemsRef);
    const items = (await small.store!.getJson(outcome.itemsRef)) as { action: string }[];
    assert.deepEqual(
      items.map((i) => i.action),
      ['create', 'update', 'skip', 'skip'],
    );
  });

  test('a missing or tampered claim check fails clearly', async () => {
    const acts = activityFunctions(deps);
    const exported = await run(acts.exportTestDefinitions, { testSuiteId: TS.salesDev });
    const elsewhere = { ...deps, store: new LocalDirectoryBlobStore('/nonexistent-dir-for-test') };
    await assert.rejects(
      run(activityFunctions(elsewhere).importTestDefinitions, {
        testSuiteId: TS.salesProd,
        config: UPSERT,
        file: exported.file,
      }),
      (err) => err instanceof ApplicationFailure && err.type === 'BlobNotFound' && err.nonRetryable,
    );
    // A damaged file is bad input, failed at once with a named type: reading it again cannot help.
    const corrupt = (err: unknown) =>
      err instanceof ApplicationFailure &&
      err.type === 'BlobCorrupt' &&
      err.nonRetryable &&
      /is corrupt/.test(err.message);
    await assert.rejects(
      run(acts.importTestDefinitions, {
        testSuiteId: TS.salesProd,
        config: UPSERT,
        file: { ...exported.file, sha256: '0'.repeat(64) },
      }),
      corrupt,
    );
    const dir = mkdtempSync(join(tmpdir(), 'blobs-damaged-'));
    const name = exported.file.ref.replace(/^local:/, '');
    writeFileSync(join(dir, name), 'not gzip at all');
    const damaged = { ...deps, store: new LocalDirectoryBlobStore(dir) };
    await assert.rejects(
      run(activityFunctions(damaged).importTestDefinitions, {
        testSuiteId: TS.salesProd,
        config: UPSERT,
        file: exported.file,
      }),
      corrupt,
    );
  });
});
