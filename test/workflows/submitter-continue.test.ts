/**
 * A target's submitter continues as new between batches, carrying what waits its turn: every request queued behind a
 * held send is answered once, with a job of its own, though the run that queued them is gone. Dev server told to
 * suggest continue-as-new after 40 history events, simulator, real sockets.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SEED_IDS } from '../../src/simulator/index.js';
import { withProjectWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { SLOW_JOBS, deps, queuingBehindOne } from '../helpers/submitter.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;

describe("a target's submitter that continues as new", () => {
  const s = devServerAndSimulator({ jobDurations: SLOW_JOBS }, { 'limit.historyCount.suggestContinueAsNew': 40 });
  const queuedBehindOne = queuingBehindOne(s);

  test('carries its queue into the next run: each request answered once, with a job of its own', async () => {
    await withProjectWorker(s.d.env, await deps(s), async (taskQueue) => {
      const { answers, created } = await queuedBehindOne(taskQueue, TG.finance, 12);
      const jobs = answers.map((a) => {
        assert.ok('result' in a, JSON.stringify(a));
        return (a.result as { jobId: string }).jobId;
      });
      assert.equal(new Set(jobs).size, 12, 'a job for each request');
      assert.deepEqual(new Set(jobs), new Set(created.map((j) => j.id)), 'each created once, and only those');
      const submitterId = `dataops-submit/${taskQueue}/default/profiling/${TG.finance}`;
      // Each request was queued once: none was dropped at the hand-over and queued again by its requester.
      const client = s.d.env.client;
      const runs = await eventually('the submitter continued as new', async () => {
        const ids: string[] = [];
        for await (const w of client.workflow.list({ query: `WorkflowId = '${submitterId}'` })) ids.push(w.runId);
        return ids.length >= 2 && ids;
      });
      let queued = 0;
      for (const runId of runs) {
        const { events } = await client.workflow.getHandle(submitterId, runId).fetchHistory();
        queued += (events ?? []).filter(
          (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'submit',
        ).length;
      }
      assert.equal(queued, 12, 'each request queued once, across the runs');
    });
  });
});
