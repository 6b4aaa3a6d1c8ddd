/**
 * Credentials in the middle of a job. Dead ones (an API token past its lifetime: nothing can refresh it): the wait
 * fails AuthenticationFailed, and the cancel it makes is refused the same way; the workflow asks once, records the
 * job as not confirmed canceled with the reason, and fails at once, rather than ask again for cancelTimeoutMs, with
 * RemoteCancelUnconfirmed naming the job it left running (the AuthenticationFailed as its cause). Ones only out of
 * reach (the token endpoint down while the access token expires) are an outage: the wait goes on.
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

describe('credentials in the middle of a job: refused for good, or only out of reach for a while', () => {
  const s = devServerAndSimulator({ jobDurations: FROZEN });

  test('the cancel is asked once, the job is named as not confirmed canceled, and the workflow fails at once', async () => {
    const token = s.sim.controls.issueApiToken('alice', 60 * 60_000);
    const client = await clientFor(s.sim, 'admin', { apiBearer: { type: 'static', token } });
    const deps = await simDeps(s.sim, { profiles: { default: { client, projectCode: 'DEMO' } } });
    await withProjectWorker(s.d.env, deps, async (taskQueue) => {
      const handle = await s.d.env.client.workflow.start('dataops.profileTableGroup', {
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
      const cancels = events.filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'dataops.cancelJob',
      );
      assert.equal(cancels.length, 1, 'asked once, not again for cancelTimeoutMs');
      assert.equal(s.sim.controls.job(job.jobId)?.status, 'pending', 'left running, as the failure records');
    });
  });

  test('a token endpoint down in the middle of a job is an outage: the wait goes on and follows the job to its end', async () => {
    const oauth = { clientId: 'mid-job', clientSecret: 'mid-job-secret' };
    const refreshToken = s.sim.controls.issueRefreshToken({ username: 'alice', ...oauth });
    const tokenUrl = `${s.sim.url}/oauth/token`;
    const apiBearer = { type: 'oauth' as const, tokenUrl, ...oauth, refreshToken };
    const client = await clientFor(s.sim, 'admin', { apiBearer });
    const deps = await simDeps(s.sim, { profiles: { default: { client, projectCode: 'DEMO' } } });
    await withProjectWorker(s.d.env, deps, async (taskQueue) => {
      const handle = await s.d.env.client.workflow.start('dataops.profileTableGroup', {
        taskQueue,
        workflowId: `token-endpoint-outage-${taskQueue}`,
        args: [{ tableGroupId: TG.sales, pollIntervalMs: 200, maxPollIntervalMs: 400 }],
      });
      const job = await eventually('the job', async () => (await handle.query(progressQuery)).jobs[0]);
      // The access token expires, and the token endpoint answers 503, then drops the connection, several times over.
      const outage = [
        s.sim.controls.addFault({ kind: 'status', status: 503, method: 'POST', path: '/oauth/token', count: 2 }),
        s.sim.controls.addFault({ kind: 'reset', method: 'POST', path: '/oauth/token', count: 1 }),
      ];
      s.sim.controls.expireTokens('alice');
      const spent = (f: { id: string; remaining: number }) => !outage.some((o) => o.id === f.id) || f.remaining === 0;
      await eventually('the outage is over', async () => (s.sim.controls.faults().every(spent) ? true : undefined));
      s.sim.controls.setJobDurations({ pendingMs: 0, claimMs: 0, runMs: 0 }, job.jobId);
      const result = (await handle.result()) as { job: { jobId: string; wait: { job: { status: string } } } };
      assert.equal(result.job.jobId, job.jobId);
      assert.equal(result.job.wait.job.status, 'completed');
      const grants = s.sim.controls.requests().filter((r) => r.path === '/oauth/token');
      assert.ok(grants.filter((r) => r.status >= 500).length >= 2, 'the wait met the outage');
      assert.equal(grants.at(-1)?.status, 200, 'and renewed its token once the endpoint was back');
      const profiled = s.sim.controls
        .jobs()
        .filter((j) => j.table_group_id === TG.sales && j.job_key === 'run-profile');
      assert.deepEqual(
        profiled.map((j) => j.id),
        [job.jobId],
        'no second profiling run',
      );
    });
  });
});
