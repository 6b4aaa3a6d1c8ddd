/**
 * A send that may have left is looked for before anything is sent again; when the lookup finds nothing, the write is
 * sent again, and only if its workflow still wants it. Before, only a first send asked: a request whose batch failed
 * for good after its send (a lost answer, then an outage past its tolerance) went back in line with its record, and
 * the next batch, finding nothing, sent it again although its workflow had been cancelled meanwhile: a job created
 * after its cancel, then cancelled.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SEED_IDS } from '../../src/simulator/index.js';
import { withProjectWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { faultHits } from '../helpers/sim.js';
import { SLOW_JOBS, askSubmitter, batchFailedForGood, deps, profilingRequesters } from '../helpers/submitter.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups.finance;

describe('a send again after a lookup', () => {
  const s = devServerAndSimulator({ jobDurations: SLOW_JOBS });

  test('is not made once its workflow was cancelled: the request is answered withdrawn, and no job is created', async () => {
    await withProjectWorker(s.d.env, await deps(s), async (taskQueue) => {
      const client = s.d.env.client;
      const submitterId = `dataops-submit/${taskQueue}/default/profiling/${TG}`;
      const { requesters, requests } = await profilingRequesters(client, taskQueue, TG, 1, 'resend');
      const request = { ...requests[0]!, outageToleranceMs: 60_000 };
      const before = new Set(s.sim.controls.jobs().map((j) => j.id));
      // The send's connection is reset before the service handles it (nothing is created, which the client cannot
      // know); then every listing the lookup reads fails, past the batch's tolerance.
      const reset = s.sim.controls.addFault({
        kind: 'reset',
        method: 'POST',
        path: `/table-groups/${TG}/profiling-runs`,
      });
      s.sim.controls.addFault({ kind: 'status', status: 503, method: 'GET', path: '/jobs', skip: 1, count: 100_000 });
      const answer = askSubmitter(client, taskQueue, submitterId, request);
      await eventually('the send was made', () => faultHits(s.sim, reset) === 1, { tries: 600, delayMs: 100 });
      // Its workflow is cancelled (nothing polls its queue: its cancel stays requested, as a settle's would).
      await requesters[0]!.cancel();
      await batchFailedForGood(client, submitterId);
      s.sim.controls.clearFaults(); // the outage ends: the next batch finds nothing, and must not send again
      assert.deepEqual(await answer, { withdrawn: true });
      const created = s.sim.controls.jobs().filter((j) => j.job_key === 'run-profile' && !before.has(j.id));
      assert.deepEqual(
        created.map((j) => j.id),
        [],
        'no job created after the cancel',
      );
      const posts = s.sim.controls
        .requests()
        .filter((r) => r.method === 'POST' && r.path.endsWith(`/table-groups/${TG}/profiling-runs`));
      assert.equal(posts.length, 1, 'sent once, before the cancel');
      await Promise.all(requesters.map((w) => w.terminate('done').catch(() => {})));
    });
  });
});
