/**
 * A pipeline cancelled at each point of its run against TestGen 5.134: at once, while the profiling run runs, as it
 * completes, while the test run runs, and as it completes; and while the test run runs with the cancel held at
 * TestGen's door until the run has completed. Whenever the cancel lands, the pipeline ends cancelled or completed
 * (never failed), every job it created is terminal when it ends and named by it, nothing it scheduled is left in
 * flight, and what it records of its cancel is what TestGen says of the job: a job it reports cancelled is canceled
 * there, and one that had completed first is recorded as already ended, not as cancelled. The points are TestGen's own
 * job states, read as it runs. The worker runs with the production heartbeat throttle (its waits hear of a cancel up
 * to 48 s late: the workflow cancels the job it knows itself) and reaches TestGen through a holding proxy.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { ServiceClient, isTerminalJobStatus } from '../../src/api/index.js';
import { progressQuery } from '../../src/contract/index.js';
import { startDevServerEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';
import { testGenNeed, startTestGen, type TestGenPeer } from '../helpers/testgen.js';
import { startPeerWorker, type PeerWorker } from '../helpers/peer-worker.js';
import { startHoldingProxy, type HoldingProxy } from '../helpers/holding-proxy.js';
import { DEFAULT_HEARTBEAT_THROTTLE_MS } from '../../src/config/worker.js';
import { needing } from '../helpers/needs.js';
import { activitiesInFlight } from '../helpers/activity-events.js';
import { demoJobs, startDemoPipeline, untilJob } from '../helpers/testgen-jobs.js';

/** Where the cancel lands: at once, or once TestGen shows the pipeline's job of `key` in `status`. */
const POINTS = [
  { what: 'at once', key: null, status: null },
  { what: 'while the profiling run runs', key: 'run-profile', status: 'running' },
  { what: 'as the profiling run completes', key: 'run-profile', status: 'completed' },
  { what: 'while the test run runs', key: 'run-tests', status: 'running' },
  { what: 'as the test run completes', key: 'run-tests', status: 'completed' },
  {
    what: 'while the test run runs, the cancel held until it completed',
    key: 'run-tests',
    status: 'running',
    held: true,
  },
] as const;

/** How long the proxy holds the cancel of the last point: past the demo test run's few seconds. */
const HOLD_MS = 20_000;

describe(
  'a pipeline cancelled at each point of its run against TestGen 5.134 (peer)',
  ...needing(testGenNeed(), () => {
    let t: TestEnv;
    let peer: TestGenPeer;
    let client: ServiceClient;
    let worker: PeerWorker;
    let proxy: HoldingProxy;

    before(async () => {
      [t, peer] = await Promise.all([startDevServerEnv(), startTestGen()]);
      proxy = await startHoldingProxy(peer.url);
      client = new ServiceClient({ baseUrl: peer.url, apiBearer: { type: 'oauth', ...(await peer.authorize()) } });
      const env = { DATAOPS_BASE_URL: proxy.url, DATAOPS_HEARTBEAT_THROTTLE_MS: String(DEFAULT_HEARTBEAT_THROTTLE_MS) };
      worker = await startPeerWorker(t, peer, await peer.authorize(), () => env);
    });
    after(async () => {
      await worker?.stop();
      await proxy?.close();
      client?.close();
      await peer?.close();
      await t?.env.teardown();
    });

    const jobs = () => demoJobs(client, peer);

    for (const point of POINTS)
      test(`cancelled ${point.what}`, { timeout: 3 * 60_000 }, async () => {
        const earlier = new Set((await jobs()).map((j) => j.id));
        const handle = await startDemoPipeline(
          t.env.client,
          peer,
          worker.taskQueue,
          `cancel-points-${uniqueTaskQueue('wf')}`,
        );
        if (point.key) await untilJob(client, peer, earlier, point.key, point.status);
        const held =
          'held' in point
            ? proxy.arm({ method: 'POST', path: /\/jobs\/[^/]+\/cancel$/, action: 'hold', holdMs: HOLD_MS })
            : null;
        await handle.cancel();

        const ending = await handle.result().then(
          (result) => ({ status: 'completed' as const, result }),
          (err: unknown) => {
            assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure, String(err));
            return { status: 'cancelled' as const, result: null };
          },
        );
        const progress = await handle.query(progressQuery);
        const created = (await jobs()).filter((j) => !earlier.has(j.id));
        const said = `ended ${ending.status}; TestGen: ${JSON.stringify(created)}; recorded: ${JSON.stringify(progress.remoteCancel ?? null)}`;
        const named = new Set(progress.jobs.map((j) => j.jobId));
        for (const job of created) {
          assert.ok(isTerminalJobStatus(job.status), `${job.key} ${job.id} left ${job.status}: ${said}`);
          assert.ok(named.has(job.id), `${job.key} ${job.id} created but not named by the pipeline: ${said}`);
        }
        if (ending.status === 'completed') {
          assert.deepEqual(
            created.map((j) => j.status),
            ['completed', 'completed'],
            `a completed pipeline's jobs completed: ${said}`,
          );
          assert.equal(ending.result?.testRun.job.jobId, created.find((j) => j.key === 'run-tests')?.id);
        }
        for (const job of created.filter((j) => j.status === 'canceled'))
          assert.equal(
            progress.remoteCancel?.jobId,
            job.id,
            `a canceled job is the one the pipeline cancelled: ${said}`,
          );
        // Nothing of the pipeline's is left in flight when it ends: every activity it scheduled ended in its history.
        const events = (await handle.fetchHistory()).events ?? [];
        assert.deepEqual(activitiesInFlight(events), [], `activities left in flight: ${said}`);
        const record = progress.remoteCancel;
        if (record) {
          const job = created.find((j) => j.id === record.jobId);
          assert.equal(record.confirmed, true, said);
          assert.equal(record.finalStatus, job?.status, `the record says what TestGen says: ${said}`);
          assert.equal(record.alreadyTerminal, job?.status !== 'canceled', `ended first, or cancelled by us: ${said}`);
        }
        if (held) {
          // The run completed while its cancel was held: the pipeline reports it, and says its cancel found it ended.
          assert.equal(held.hits, 1, said);
          assert.equal(ending.status, 'completed', said);
          assert.equal(record?.finalStatus, 'completed', said);
          assert.equal(record?.alreadyTerminal, true, said);
        }
        if (point.key === null || (point.key === 'run-profile' && point.status === 'running')) {
          assert.equal(ending.status, 'cancelled', said);
          assert.ok(!created.some((j) => j.key === 'run-tests'), `no test run after the cancel: ${said}`);
        }
      });
  }),
);
