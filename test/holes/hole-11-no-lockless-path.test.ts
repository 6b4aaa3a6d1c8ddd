/**
 * Hole 11 of the explorer's issue: a submission sent by its own activity (no `lock`: no submitter) whose send was not
 * recorded looked for its job since the activity was scheduled, and nothing named the jobs our other submissions made
 * on the target meanwhile: it could take an earlier job of ours. The lockless path is gone (the one-path issue): a
 * submission or order given no `lock` goes through its target's submitter on its own task queue, as every other does.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, SUBMIT_QUICK_RETRY, withHarnessWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { clientFor, orderSubmitterAt, submitterAt } from '../helpers/sim.js';

const TG = SEED_IDS.tableGroups;
const s = devServerAndSimulator({ jobDurations: { pendingMs: 60_000 } });

test('hole 11: a submission without `lock` takes its turn at its target’s submitter, never an earlier job', async () => {
  const deps = await simDeps(s.sim, { soleWriter: true, submitSettleMs: 1_000 });
  // Another workflow of ours profiled the table group a moment ago.
  const earlier = await (await clientFor(s.sim)).profilingRuns.submit(TG.finance);
  await withHarnessWorker(s.d.env, deps, async (taskQueue) => {
    const run = (await s.d.env.client.workflow.execute('callActivity', {
      taskQueue,
      workflowId: `hole-11-${taskQueue}`,
      args: ['dataops.submitProfilingRun', { targetId: TG.finance }, SUBMIT_QUICK_RETRY],
    })) as { jobId: string };
    assert.notEqual(run.jobId, earlier.id, 'its own job, not the earlier one');
    const submitter = s.d.env.client.workflow.getHandle(submitterAt(s.sim.url, taskQueue, 'profiling', TG.finance));
    assert.equal((await submitter.describe()).type, 'dataops.submitter', 'sent by the target’s submitter');
    const order = { kitchen: 'production', recipe: 'load-warehouse', variation: 'daily' };
    await s.d.env.client.workflow.execute('callActivity', {
      taskQueue,
      workflowId: `hole-11-order-${taskQueue}`,
      args: ['dataops.runOrder', order, SUBMIT_QUICK_RETRY],
    });
    const orders = s.d.env.client.workflow.getHandle(orderSubmitterAt(s.sim.url, taskQueue, order));
    assert.equal((await orders.describe()).type, 'dataops.submitter', 'the order too');
  });
  assert.equal(s.sim.controls.jobs().filter((j) => j.table_group_id === TG.finance).length, 2);
});
