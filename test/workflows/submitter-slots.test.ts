/**
 * A request waiting its turn at a target's submitter holds its activity slot; the submitter's batch, scheduled on the
 * workflows' task queue, needs one free there. So the submitting activities (a job's own submission, an order's
 * creation) run on the waits task queue, beside the waits: with them on the workflows' queue, 1,000 pipelines with
 * `statusReports: 0` on one target held all 200 slots there and no batch ever ran (bench:scale, 2026-11-27). Here the
 * workflows' queue has one slot: the first request would hold it for good.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createActivities } from '../../src/activities/index.js';
import type { ProfileTableGroupResult, RunOrderResult } from '../../src/contract/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, workflowsPath } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { withWorker } from '../helpers/temporal.js';

const ORDER = { kitchen: 'production', recipe: 'load-warehouse', variation: 'daily' };

describe("a submitter's batch and its requesters' slots", () => {
  const s = devServerAndSimulator({});

  // Without the submitting activities on the waits queue, each workflow below never ends (the timeout is a hang's).
  test(
    'with one slot on the workflows queue, submissions and orders that wait their turn are sent',
    { timeout: 120_000 },
    async () => {
      const activities = createActivities(await simDeps(s.sim));
      const one = { workflowsPath, activities, maxConcurrentActivityTaskExecutions: 1 };
      await withWorker(s.d.env, one, async (taskQueue) => {
        const { client } = s.d.env;
        const profiled = [0, 1].map((i) =>
          client.workflow.execute('dataops.profileTableGroup', {
            taskQueue,
            workflowId: `slots-profile-${i}-${taskQueue}`,
            args: [{ tableGroupId: SEED_IDS.tableGroups.finance, statusReports: 0 }],
          }),
        );
        const ordered = client.workflow.execute('dataops.runOrder', {
          taskQueue,
          workflowId: `slots-order-${taskQueue}`,
          args: [ORDER],
        });
        const runs = (await Promise.all(profiled)) as ProfileTableGroupResult[];
        assert.equal(new Set(runs.map((r) => r.job.jobId)).size, 2, 'two profiling runs, one each');
        for (const r of runs) assert.equal(s.sim.controls.job(r.job.jobId)?.status, 'completed');
        assert.ok(((await ordered) as RunOrderResult).orderId, 'the order was created');
      });
    },
  );
});
