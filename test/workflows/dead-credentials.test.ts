/**
 * Credentials that die in the middle of a job (an API token past its lifetime: nothing can refresh it). The wait
 * fails AuthenticationFailed, and the cancel it makes is refused the same way: the workflow asks once, records the
 * job as not confirmed canceled with the reason, and fails at once, rather than ask again for cancelTimeoutMs, with
 * RemoteCancelUnconfirmed naming the job it left running (the AuthenticationFailed as its cause).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ActivityFailure, ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { progressQuery } from '../../src/contract/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { FROZEN, clientFor } from '../helpers/sim.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;

describe('credentials refused for good in the middle of a job', () => {
  const s = devServerAndSimulator({ jobDurations: FROZEN });

  test('the cancel is asked once, the job is named as not confirmed canceled, and the workflow fails at once', async () => {
    const token = s.sim.controls.issueApiToken('alice', 60 * 60_000);
    const client = await clientFor(s.sim, 'admin', { apiBearer: { type: 'static', token } });
    const deps = await simDeps(s.sim, { profiles: { default: { client, projectCode: 'DEMO' } } });
    await withProjectWorker(s.d.env, deps, async (taskQueue) => {
      const handle = await s.d.env.client.workflow.start('profileTableGroup', {
        taskQueue,
        workflowId: `dead-credentials-${taskQueue}`,
        args: [{ tableGroupId: TG.finance, pollIntervalMs: 200, maxPollIntervalMs: 200, cancelTimeoutMs: 120_000 }],
      });
      const job = await eventually('the job', async () => (await handle.query(progressQuery)).jobs[0]);
      s.sim.controls.revokeTokens('alice'); // the token is refused from now on, and nothing can renew it
      const err = await handle.result().catch((e: unknown) => e);
      assert.ok(err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure, String(err));
      // The failure names the job left running, with what ended the wait as its cause.
      assert.equal(err.cause.type, 'RemoteCancelUnconfirmed');
      assert.match(
        err.cause.message,
        new RegExp(`jobs that may still be running: profiling job ${job.jobId} \\(last seen pending\\)`),
      );
      assert.match(err.cause.message, /the workflow failed \(/);
      const details = err.cause.details?.[0] as { leftRunning: { jobId: string; lastStatus: string }[] };
      assert.deepEqual(details.leftRunning, [{ role: 'profiling', jobId: job.jobId, lastStatus: 'pending' }]);
      assert.ok(err.cause.cause instanceof ActivityFailure, String(err.cause.cause));
      assert.ok(err.cause.cause.cause instanceof ApplicationFailure);
      assert.equal(err.cause.cause.cause.type, 'AuthenticationFailed');
      const { remoteCancel } = await handle.query(progressQuery);
      assert.equal(remoteCancel?.jobId, job.jobId);
      assert.equal(remoteCancel?.confirmed, false, 'not said to be cancelled');
      assert.match(remoteCancel?.error ?? '', /401|refused|credential|token/i);
      const events = (await handle.fetchHistory()).events ?? [];
      const cancels = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'cancelJob');
      assert.equal(cancels.length, 1, 'asked once, not again for cancelTimeoutMs');
      assert.equal(s.sim.controls.job(job.jobId)?.status, 'pending', 'left running, as the failure records');
    });
  });
});
