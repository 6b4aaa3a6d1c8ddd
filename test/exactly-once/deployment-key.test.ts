/**
 * A target's submitter is keyed by the service deployment, not the credential profile: two profiles that write to one
 * target (one account or two) take turns at one submitter, so a lost answer of one cannot be matched to the other's
 * job. Keyed by profile, each had a submitter of its own, their sends to a target could be in flight together, and a
 * worker had to refuse the sole-writer declaration on two profiles of one account.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestsQuery } from '../../src/exactly-once/messages.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { SUBMIT_QUICK_RETRY, withHarnessWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { clientFor, faultHits, HELD_CLIENT_TIMEOUT_MS, HOLD_AT_MOST_MS, submitterAt } from '../helpers/sim.js';
import { deps as heldDeps } from '../helpers/submitter.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;
const s = devServerAndSimulator({ jobDurations: { pendingMs: 60_000 } });

test('two profiles of one deployment send to one target in turn, through one submitter', async () => {
  // Another profile of the same deployment, as another user; both wait out a held send (HELD_CLIENT_TIMEOUT_MS).
  const nightly = {
    client: await clientFor(s.sim, 'operator', { timeoutMs: HELD_CLIENT_TIMEOUT_MS }),
    projectCode: 'DEMO',
    soleWriter: true,
  };
  const base = await heldDeps(s);
  const deps = { ...base, profiles: { ...base.profiles, nightly } };
  const path = `/table-groups/${TG.finance}/profiling-runs`;
  await withHarnessWorker(s.d.env, deps, async (taskQueue) => {
    const submitter = s.d.env.client.workflow.getHandle(submitterAt(s.sim.url, taskQueue, 'profiling', TG.finance));
    // The first profile's send is held in flight until the second profile's request has queued behind it.
    const held = s.sim.controls.addFault({ kind: 'delay', delay_ms: HOLD_AT_MOST_MS, method: 'POST', path });
    const submit = (profile: string) =>
      s.d.env.client.workflow.execute('callActivity', {
        taskQueue,
        workflowId: `deployment-key-${profile}-${taskQueue}`,
        args: ['dataops.submitProfilingRun', { profile, targetId: TG.finance }, SUBMIT_QUICK_RETRY],
      }) as Promise<{ jobId: string }>;
    const first = submit('default');
    let both: string[];
    let second: Promise<{ jobId: string }>;
    try {
      await eventually('the first send held', () => faultHits(s.sim, held) === 1);
      second = submit('nightly');
      both = await eventually('the other profile queued at the same submitter', async () => {
        const { sending, queued } = await submitter.query(requestsQuery);
        return sending.length === 1 && queued.length === 1 ? [...sending, ...queued] : undefined;
      });
    } finally {
      s.sim.controls.releaseFault(held.id);
    }
    assert.ok(both[0]!.startsWith('deployment-key-default-'), 'the first profile’s in flight');
    assert.ok(both[1]!.startsWith('deployment-key-nightly-'), 'the second profile’s waiting its turn behind it');
    const [a, b] = await Promise.all([first, second]);
    assert.notEqual(a.jobId, b.jobId, 'a job each');
  });
});
