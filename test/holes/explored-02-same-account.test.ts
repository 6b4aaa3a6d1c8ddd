/**
 * Found by the explorer (seeds 32, 46, 107 and 108): a profiling run whose submit answer was lost (a 503 that created
 * nothing), while another API client of the same account submitted a profiling run of the same table group. TestGen
 * keeps nothing of the caller on a profiling run, so the one new run on the table group was taken for the workflow's
 * own, reported, and cancelled on its cancel. Now a job told by its target alone is taken only where the profile
 * declares that nothing else writes there (DATAOPS_SOLE_WRITER); by default it is named in a SubmissionOutcomeUnknown
 * failure, and nothing is sent again.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { ending } from '../helpers/ending.js';
import { SimHttp, faultHits } from '../helpers/sim.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;
const SUBMIT = `/api/v1/table-groups/${TG.finance}/profiling-runs`;

describe('a lost answer beside another client of the same account', () => {
  const s = devServerAndSimulator({});

  /** Profiles the finance table group with its submit answer lost by `fault`; another client submits meanwhile. */
  async function profileBeside(fault: 'status' | 'drop_after_commit', other: boolean) {
    const before = new Set(s.sim.controls.jobs().map((j) => j.id));
    const lost = s.sim.controls.addFault({ kind: fault, status: 503, method: 'POST', path: SUBMIT });
    const end = await withProjectWorker(
      s.d.env,
      await simDeps(s.sim, { soleWriter: false, submitSettleMs: 3_000 }),
      async (taskQueue) => {
        const handle = await s.d.env.client.workflow.start('dataops.profileTableGroup', {
          taskQueue,
          workflowId: `explored-2-${fault}-${taskQueue}`,
          args: [{ tableGroupId: TG.finance, pollIntervalMs: 100, maxPollIntervalMs: 100 }],
        });
        await eventually('the answer lost', () => faultHits(s.sim, lost) === 1);
        if (other) assert.equal((await new SimHttp(s.sim).as('admin', 'POST', SUBMIT, {})).status, 202);
        return ending<{ jobId: string }>(handle);
      },
    );
    const fresh = s.sim.controls.jobs().filter((j) => !before.has(j.id) && j.table_group_id === TG.finance);
    return { end, fresh };
  }

  test("explored 2: another client's run, made while ours was lost, is named, never reported as ours", async () => {
    const { end, fresh } = await profileBeside('status', true);
    assert.equal(fresh.length, 1, 'the other client’s run only: nothing sent again');
    assert.equal(end.outcome, 'failed', `ended ${end.outcome}: ${JSON.stringify(end.result)}`);
    assert.match(end.failure ?? '', /SubmissionOutcomeUnknown/);
    assert.ok(end.failure?.includes(`new job ${fresh[0]!.id}`), `named in: ${end.failure}`);
    assert.equal(s.sim.controls.jobs().find((j) => j.id === fresh[0]!.id)?.status !== 'cancelled', true, 'left alone');
  });

  test('by default, our own run whose answer was lost is named the same way: it cannot be told from theirs', async () => {
    const { end, fresh } = await profileBeside('drop_after_commit', false);
    assert.equal(fresh.length, 1, 'sent once');
    assert.equal(end.outcome, 'failed', `ended ${end.outcome}`);
    assert.ok(end.failure?.includes(`new job ${fresh[0]!.id}`), `named in: ${end.failure}`);
  });
});
