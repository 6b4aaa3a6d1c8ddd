/**
 * The one lookup skips every job its target's submitter answered an earlier send with: never this send's. The send's
 * mark usually keeps such a job out already (it existed before the mark); here the listing read at the mark misses it
 * (a lagging read), so only the submitter's record tells the two jobs apart. Without the skip, two jobs on the target
 * are new, and the lost answer is "several match": SubmissionOutcomeUnknown, nothing adopted.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, submissionsTo, SUBMIT_QUICK_RETRY, withHarnessWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { faultHits } from '../helpers/sim.js';

const TG = SEED_IDS.tableGroups;
const s = devServerAndSimulator({ jobDurations: { pendingMs: 60_000 } });

test("a lost answer's lookup skips the job its submitter answered the send before with", async () => {
  const deps = await simDeps(s.sim); // the sole writer of its targets: one job found by its target is ours
  await withHarnessWorker(s.d.env, deps, async (taskQueue) => {
    const submit = (n: number) =>
      s.d.env.client.workflow.execute('callActivity', {
        taskQueue,
        workflowId: `recorded-skip-${n}-${taskQueue}`,
        args: ['dataops.submitProfilingRun', { targetId: TG.sales }, SUBMIT_QUICK_RETRY],
      }) as Promise<{ jobId: string; reconciled: boolean }>;
    const first = await submit(1);
    const before = submissionsTo(s.sim, TG.sales);
    // The second send's mark reads a listing that does not show the first job yet; its answer is then lost.
    const stale = s.sim.controls.addFault({
      kind: 'respond',
      status: 200,
      method: 'GET',
      path: '/projects/DEMO/jobs',
      body: { items: [], page: 1, limit: 50, total: 0 },
    });
    s.sim.controls.addFault({ kind: 'drop_after_commit', method: 'POST', path: `/table-groups/${TG.sales}/` });
    const second = await submit(2);
    assert.equal(faultHits(s.sim, stale), 1, 'the mark was taken from the lagging listing');
    assert.equal(submissionsTo(s.sim, TG.sales), before + 1, 'one job for the second request, sent once');
    assert.equal(second.reconciled, true, 'found by the lookup');
    assert.notEqual(second.jobId, first.jobId, 'not the job the submitter answered the first request with');
    assert.equal(s.sim.controls.job(second.jobId)?.table_group_id, TG.sales);
  });
});
