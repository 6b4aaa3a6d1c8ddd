/**
 * Hole 7 of the explorer's issue: when a submitter's batch failed for good (its outage tolerance ran out while it
 * looked for a lost answer), the request whose send may have committed was answered with the failure and its record
 * of the send dropped: the job the service created was never looked for again, and ran unwatched. Such a request now
 * stays first in line with its record, and the next batch looks for its job before anything is sent.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SEED_IDS } from '../../src/simulator/index.js';
import { withProjectWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { SLOW_JOBS, askSubmitter, batchFailedForGood, deps, profilingRequesters } from '../helpers/submitter.js';

const TG = SEED_IDS.tableGroups.finance;

describe('hole 7', () => {
  const s = devServerAndSimulator({ jobDurations: SLOW_JOBS });

  test('hole 7: a batch that fails for good after a send that may have committed leaves that send to be looked for', async () => {
    await withProjectWorker(s.d.env, await deps(s), async (taskQueue) => {
      const submitterId = `dataops-submit/${taskQueue}/default/profiling/${TG}`;
      const { requesters, requests } = await profilingRequesters(s.d.env.client, taskQueue, TG, 1, 'hole-7');
      const request = { ...requests[0]!, outageToleranceMs: 60_000 };
      const before = new Set(s.sim.controls.jobs().map((j) => j.id));
      // The send commits and its answer is lost; then every listing the lookup reads fails, past the tolerance.
      s.sim.controls.addFault({
        kind: 'drop_after_commit',
        method: 'POST',
        path: `/table-groups/${TG}/profiling-runs`,
      });
      const outage = s.sim.controls.addFault({
        kind: 'status',
        status: 503,
        method: 'GET',
        path: '/jobs',
        skip: 1,
        count: 100_000,
      });
      const answer = askSubmitter(s.d.env.client, taskQueue, submitterId, request);
      await batchFailedForGood(s.d.env.client, submitterId);
      s.sim.controls.clearFaults(); // the outage ends
      assert.equal(outage.kind, 'status');
      const created = s.sim.controls.jobs().filter((j) => j.job_key === 'run-profile' && !before.has(j.id));
      assert.equal(created.length, 1, 'the one send committed');
      const got = await answer;
      assert.deepEqual('result' in got ? (got.result as { jobId: string }).jobId : got, created[0]!.id);
      assert.equal(
        s.sim.controls.jobs().filter((j) => j.job_key === 'run-profile' && !before.has(j.id)).length,
        1,
        'nothing sent twice',
      );
      await Promise.all(requesters.map((w) => w.terminate('done').catch(() => {})));
    });
  });
});
