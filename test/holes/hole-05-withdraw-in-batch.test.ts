/**
 * Hole 5 of the explorer's issue: a request already taken into a batch ignored its withdrawal (its workflow was
 * cancelled while it waited for the sends ahead of it in the batch): the job was created after the cancel, up to 19
 * sends later, and cancelled only then. The batch now asks its submitter before each send whether it may leave, and
 * a request withdrawn meanwhile is answered `withdrawn` and never sent.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { requestsQuery, withdrawSignal } from '../../src/exactly-once/messages.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { withProjectWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { HOLD_AT_MOST_MS, faultHits } from '../helpers/sim.js';
import { SLOW_JOBS, askSubmitter, deps, profilingRequesters } from '../helpers/submitter.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups.salesDev;

describe('hole 5', () => {
  const s = devServerAndSimulator({ jobDurations: SLOW_JOBS });

  test('hole 5: a request withdrawn while its batch sends the ones ahead of it is never sent', async () => {
    await withProjectWorker(s.d.env, await deps(s), async (taskQueue) => {
      const submitterId = `dataops-submit/${taskQueue}/default/profiling/${TG}`;
      const client = s.d.env.client;
      const { requesters, requests } = await profilingRequesters(client, taskQueue, TG, 4, 'hole-5');
      const before = new Set(s.sim.controls.jobs().map((j) => j.id));
      const path = `/table-groups/${TG}/profiling-runs`;
      const hold = () => s.sim.controls.addFault({ kind: 'delay', delay_ms: HOLD_AT_MOST_MS, method: 'POST', path });
      const first = hold();
      const answers = [askSubmitter(client, taskQueue, submitterId, requests[0]!)];
      await eventually('the first send held', () => faultHits(s.sim, first) === 1);
      const withdrawn = new Set<string>();
      answers.push(
        ...requests
          .slice(1)
          .map((r) => askSubmitter(client, taskQueue, submitterId, r, undefined, () => !withdrawn.has(r.id))),
      );
      const submitter = client.workflow.getHandle(submitterId);
      await eventually(
        'three queued behind it',
        async () => (await submitter.query(requestsQuery)).queued.length === 3,
      );
      // The batch of the three begins: its first send is held, the last of the three waits its turn in the batch.
      const second = hold();
      s.sim.controls.releaseFault(first.id);
      await eventually('the batch sending its first', () => faultHits(s.sim, second) === 1);
      const { sending } = await submitter.query(requestsQuery);
      assert.equal(sending.length, 3, 'the three in one batch');
      const last = sending.at(-1)!;
      withdrawn.add(last);
      await submitter.signal(withdrawSignal, last);
      s.sim.controls.releaseFault(second.id);
      const got = await Promise.all(answers);
      const created = s.sim.controls.jobs().filter((j) => j.job_key === 'run-profile' && !before.has(j.id));
      const at = requests.findIndex((r) => r.id === last);
      assert.deepEqual(got[at], { withdrawn: true }, 'the withdrawn request is answered so');
      assert.equal(created.length, 3, 'and never sent: three jobs, for the three others');
      await Promise.all(requesters.map((w) => w.terminate('done').catch(() => {})));
    });
  });
});
