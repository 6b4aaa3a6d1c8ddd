/**
 * Hole 4 of the explorer's issue: a test run sent without the suite's submitter (the deployment is proven to keep our
 * submission id) on the runJob path (a deferrable wait, or no status reports) was sent under the workflow's cancel:
 * a cancel while the POST was in flight aborted it and the lookup of its outcome together. The service still created
 * the run, nobody looked for it, and it kept running after the workflow ended cancelled. The send now finishes through
 * a cancel, so the run it created is known, and the workflow cancels it.
 *
 * On the main this was found on, this test passed: the activity's cancel was requested (the history shows it) but
 * never reached the activity while its POST was held (45 s), so the send finished and its run was cancelled after.
 * It stays as the hole's regression test, for the cancel that does arrive mid-send once cancels are prompt. Since the
 * one path, the run goes through its suite's submitter like every send; the cancel mid-send must still leave no run.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isTerminalJobStatus } from '../../src/vocabulary.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { runActivity, simDeps, SUBMIT_QUICK_RETRY, withProjectWorker } from '../helpers/activities.js';
import { ending } from '../helpers/ending.js';
import { FROZEN, faultHits, startTestSimulator } from '../helpers/sim.js';
import { startDevServerEnv, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const SUITE = SEED_IDS.testSuites.financeProd;

let t: TestEnv;
before(async () => {
  t = await startDevServerEnv();
});
after(async () => t?.env.teardown());

test('hole 4: a cancel while a test run is being sent leaves no run behind', async () => {
  const { sim } = await startTestSimulator({
    jobDurations: { ...FROZEN, cancelMs: 100 },
    variants: { callerMetadata: true },
  });
  try {
    const deps = await simDeps(sim, { timeoutMs: 90_000 });
    // A test run of ours before: the deployment is seen to keep our id.
    await runActivity(t.env, deps, 'submitTestRun', { targetId: SUITE }, SUBMIT_QUICK_RETRY);
    const before = new Set(sim.controls.jobs().map((j) => j.id));
    const held = sim.controls.addFault({
      kind: 'delay',
      delay_ms: 3_000,
      method: 'POST',
      path: `/test-suites/${SUITE}/test-runs`,
    });
    const end = await withProjectWorker(t.env, deps, async (taskQueue) => {
      const handle = await t.env.client.workflow.start('dataops.runTestSuite', {
        taskQueue,
        workflowId: `hole-4-${taskQueue}`,
        args: [{ testSuiteId: SUITE, waitStrategy: 'deferrable', pollIntervalMs: 200, cancelTimeoutMs: 20_000 }],
      });
      await eventually('the send held', () => faultHits(sim, held) === 1);
      await handle.cancel();
      return ending(handle);
    });
    assert.equal(end.outcome, 'cancelled');
    // The held send is created when its hold ends; then it must be cancelled, not left running.
    const created = await eventually('the held run created', () => {
      const fresh = sim.controls.jobs().filter((j) => !before.has(j.id));
      return fresh.length > 0 ? fresh : undefined;
    });
    assert.equal(created.length, 1, 'one run');
    await new Promise((r) => setTimeout(r, 2_000));
    const run = sim.controls.job(created[0]!.id)!;
    assert.ok(isTerminalJobStatus(run.status), `the run it created is ${run.status}, left running after the cancel`);
  } finally {
    await sim.close();
  }
});
