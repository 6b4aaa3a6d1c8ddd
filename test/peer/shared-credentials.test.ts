/**
 * Workers that share one service account on TestGen 5.134: one confidential client, registered on the peer, and the
 * refresh token of a real authorization-code flow with PKCE (the peer helper drives it). A refresh by one worker
 * leaves the other's access token working (TestGen revokes only the access token issued with the refresh token
 * itself), and two worker processes on one task queue run pipelines side by side.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ServiceClient } from '../../src/api/index.js';
import type { ProfileTableGroupResult } from '../../src/contract/index.js';
import { needing } from '../helpers/needs.js';
import { startWorkerProcess, type Proc } from '../helpers/processes.js';
import { startDevServerEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';
import { startTestGen, testGenNeed, testGenService, type OAuthGrant, type TestGenPeer } from '../helpers/testgen.js';

const LONG = { timeout: 5 * 60_000 };

describe(
  'two workers sharing one confidential OAuth client on TestGen 5.134 (peer)',
  ...needing(testGenNeed(), () => {
    let t: TestEnv;
    let peer: TestGenPeer;
    let grant: OAuthGrant;
    const workers: Proc[] = [];
    before(async () => {
      [t, peer] = await Promise.all([startDevServerEnv(), startTestGen()]);
      grant = await peer.authorize();
    }, LONG);
    after(async () => {
      await Promise.all(workers.map((w) => w.stop('SIGKILL')));
      await peer?.close();
      await t?.env.teardown();
    });

    const sharing = () => new ServiceClient({ baseUrl: peer.url, apiBearer: { type: 'oauth', ...grant } });

    test("one worker's refresh leaves the other's access token working", async () => {
      const [a, b] = [sharing(), sharing()];
      try {
        const list = (c: ServiceClient) => c.jobs.list(peer.demo.projectCode, { job_key: 'run-profile', limit: 1 });
        await list(a);
        await list(b);
        const b1 = await b.oauthTokenSource!.token();
        b.oauthTokenSource!.invalidate(b1);
        await list(b); // b refreshes again, from the same refresh token
        const before = a.oauthTokenSource!.refreshes;
        await list(a);
        assert.equal(a.oauthTokenSource!.refreshes, before, "a's token still works: no 401, no refresh");
        assert.equal(b.oauthTokenSource!.refreshes, 2);
      } finally {
        a.close();
        b.close();
      }
    });

    test('two worker processes with that grant run pipelines side by side', LONG, async () => {
      const taskQueue = uniqueTaskQueue('peer-shared');
      const work = mkdtempSync(join(tmpdir(), 'peer-shared-'));
      const env = {
        TEMPORAL_ADDRESS: t.env.connection.options.address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        ...testGenService(peer, grant),
        DATAOPS_BLOB_DIR: join(work, 'blobs'),
        DATAOPS_EXPORT_DIR: join(work, 'exports'),
      };
      workers.push(startWorkerProcess(env), startWorkerProcess(env));
      const runs = await Promise.all(
        [1, 2].map(
          (n) =>
            t.env.client.workflow.execute('profileTableGroup', {
              taskQueue,
              workflowId: `${taskQueue}-${n}`,
              args: [{ tableGroupId: peer.demo.tableGroupId, pollIntervalMs: 500, maxPollIntervalMs: 1_000 }],
            }) as Promise<ProfileTableGroupResult>,
        ),
      );
      assert.deepEqual(
        runs.map((r) => r.job.wait.job.status),
        ['completed', 'completed'],
      );
      assert.notEqual(runs[0]!.job.jobId, runs[1]!.job.jobId, 'a job of its own each');
    });
  }),
);
