/**
 * An import's apply goes through its suite's submitter, as every write does: two applies into one suite take turns,
 * so a fresh preview that tells whether a lost apply landed can only have been changed by that apply (or another
 * client). Sent from their own activities, the second went out while the first was still in flight.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { activityFunctions } from '../../src/activities/index.js';
import type { ImportOutcome } from '../../src/contract/index.js';
import { applySubmitterId, deploymentsOf } from '../../src/exactly-once/index.js';
import { requestsQuery } from '../../src/exactly-once/messages.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { SUBMIT_QUICK_RETRY, withHarnessWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { run } from '../helpers/mock-activity.js';
import { faultHits, HOLD_AT_MOST_MS } from '../helpers/sim.js';
import { deps as heldDeps } from '../helpers/submitter.js';
import { eventually } from '../helpers/wait.js';

const { salesDev: DEV, salesProd: PROD } = SEED_IDS.testSuites;
const UPSERT = { mode: 'apply', on_match: 'overwrite_unlocked', on_new: 'create', on_absence: 'do_nothing' } as const;
const s = devServerAndSimulator();

test('two applies into one suite take turns at its submitter: the second is not sent while the first is in flight', async () => {
  const deps = await heldDeps(s);
  const acts = activityFunctions(deps);
  const exported = await run(acts.exportTestDefinitions, { testSuiteId: DEV, filters: { origin: 'both' } });
  const input = { testSuiteId: PROD, config: UPSERT, file: exported.file };
  const preview = await run(acts.importTestDefinitions, { ...input, config: { ...UPSERT, mode: 'preview' } });
  const expected = { summary: preview.summary, counts: preview.counts };
  const before = s.sim.controls.definitions(PROD).length;
  const imports = () => s.sim.controls.requests().filter((r) => r.path.endsWith('/test-definition-import')).length;
  const sentBefore = imports();
  await withHarnessWorker(s.d.env, deps, async (taskQueue) => {
    const { baseUrl, apiBaseUrl } = deps.profiles.default!.client;
    const submitter = s.d.env.client.workflow.getHandle(
      applySubmitterId(taskQueue, deploymentsOf(baseUrl, apiBaseUrl).jobs, PROD),
    );
    const apply = (name: string) =>
      s.d.env.client.workflow.execute('callActivity', {
        taskQueue,
        workflowId: `apply-in-turn-${name}-${taskQueue}`,
        args: ['dataops.importTestDefinitions', { ...input, expected }, SUBMIT_QUICK_RETRY],
      }) as Promise<ImportOutcome>;
    // The first apply is held in flight until the second has queued behind it.
    const held = s.sim.controls.addFault({
      kind: 'delay',
      delay_ms: HOLD_AT_MOST_MS,
      method: 'POST',
      path: 'test-definition-import',
    });
    const first = apply('first');
    let second: Promise<ImportOutcome>;
    let both: string[];
    try {
      await eventually('the first apply held', () => faultHits(s.sim, held) === 1);
      second = apply('second');
      both = await eventually('the second queued behind it at the suite’s submitter', async () => {
        const { sending, queued } = await submitter.query(requestsQuery).catch(() => ({ sending: [], queued: [] }));
        return sending.length === 1 && queued.length === 1 ? [...sending, ...queued] : undefined;
      });
      assert.equal(faultHits(s.sim, held), 1, 'one apply in flight');
      assert.equal(imports(), sentBefore, 'nothing else sent meanwhile: the held apply is not answered yet');
    } finally {
      s.sim.controls.releaseFault(held.id);
    }
    assert.ok(both[0]!.startsWith('apply-in-turn-first-'), 'the first in flight');
    assert.ok(both[1]!.startsWith('apply-in-turn-second-'), 'the second waiting its turn');
    const [a, b] = await Promise.all([first, second]);
    assert.deepEqual(a.summary, preview.summary, 'the first applied what the preview said');
    assert.equal(b.summary.created, 0, 'the second, sent after it, found nothing left to create');
    assert.equal(imports() - sentBefore, 2, 'two applies, no lookup: each answered');
    assert.equal(s.sim.controls.definitions(PROD).length, before + preview.summary.created);
    // An apply is one large request: its batch keeps the import's timeouts (an hour), not a submission's.
    const { events } = await submitter.fetchHistory();
    const batches = (events ?? [])
      .flatMap((e) => e.activityTaskScheduledEventAttributes ?? [])
      .filter((a) => a.activityType?.name === 'dataops.sendInTurn');
    assert.ok(batches.length >= 1, 'the applies were sent in batches');
    for (const b of batches) assert.equal(Number(b.startToCloseTimeout?.seconds), 3_600, 'an hour per batch');
  });
});
