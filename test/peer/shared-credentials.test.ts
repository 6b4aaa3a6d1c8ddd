/**
 * Workers that share one service account on TestGen 5.134: one confidential client, registered on the peer, and the
 * refresh token of a real authorization-code flow with PKCE (the peer helper drives it). A refresh by one worker
 * leaves the other's access token working (TestGen revokes only the access token issued with the refresh token
 * itself), and two worker processes on one task queue run pipelines side by side.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ServiceClient } from '../../src/api/index.js';
import type { ProfileTableGroupResult } from '../../src/contract/index.js';
import { needing } from '../helpers/needs.js';
import { dist, freePort, startProcess, startWorkerProcess, type Proc } from '../helpers/processes.js';
import { eventually } from '../helpers/wait.js';
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

    test(
      '`dataops auth login` writes a refresh token from the sign-in a browser makes; a client works with it',
      LONG,
      async () => {
        const dir = mkdtempSync(join(tmpdir(), 'auth-login-'));
        const out = join(dir, 'refresh-token');
        const port = await freePort();
        const cli = startProcess(
          [
            dist('starter.js'),
            'auth',
            'login',
            '--base-url',
            peer.url,
            '--register',
            'peer test login',
            '--out',
            out,
            '--port',
            String(port),
          ],
          {},
        );
        try {
          const link = await eventually(
            'the URL to open',
            () => /^(http\S+\/oauth\/authorize\?\S+)$/m.exec(cli.output())?.[1],
            {
              tries: 600,
              delayMs: 50,
            },
          );
          // The browser: the login form, posted with the URL's own parameters; then the redirect it is sent to.
          const fields = Object.fromEntries(new URL(link).searchParams);
          const signIn = await fetch(`${peer.url}/oauth/authorize`, {
            method: 'POST',
            redirect: 'manual',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ ...fields, username: peer.username, password: peer.password }).toString(),
          });
          const redirect = signIn.headers.get('location');
          assert.equal(signIn.status, 302, await signIn.text());
          assert.ok(redirect?.startsWith(`http://127.0.0.1:${port}/callback?`), String(redirect));
          assert.equal((await fetch(redirect ?? '')).status, 200);
          assert.equal(await cli.exited, 0, cli.output());
          const refreshToken = readFileSync(out, 'utf8').trim();
          const clientSecret = readFileSync(`${out}.client-secret`, 'utf8').trim();
          assert.equal(statSync(out).mode & 0o777, 0o600);
          assert.ok(
            !cli.output().includes(refreshToken) && !cli.output().includes(clientSecret),
            'nothing secret printed',
          );
          const clientId = /DATAOPS_OAUTH_CLIENT_ID=(\S+)/.exec(cli.output())?.[1] ?? '';
          const tokenUrl = /DATAOPS_OAUTH_TOKEN_URL=(\S+)/.exec(cli.output())?.[1] ?? '';
          const client = new ServiceClient({
            baseUrl: peer.url,
            apiBearer: { type: 'oauth', tokenUrl, clientId, clientSecret, refreshToken },
          });
          try {
            const jobs = await client.jobs.list(peer.demo.projectCode, { limit: 1 });
            assert.ok(Array.isArray(jobs.items));
          } finally {
            client.close();
          }
        } finally {
          await cli.stop('SIGKILL');
        }
      },
    );

    test(
      'two worker processes with that grant run pipelines side by side, and a restarted one goes on',
      LONG,
      async () => {
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
              t.env.client.workflow.execute('dataops.profileTableGroup', {
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
        // Restarted: both processes gone, a new one with the same grant. A confidential client reuses its refresh
        // token, so the restart presents nothing TestGen has spent (a public client's would revoke the chain).
        await Promise.all(workers.splice(0).map((w) => w.stop('SIGKILL')));
        workers.push(startWorkerProcess(env));
        const after = (await t.env.client.workflow.execute('dataops.profileTableGroup', {
          taskQueue,
          workflowId: `${taskQueue}-restarted`,
          args: [{ tableGroupId: peer.demo.tableGroupId, pollIntervalMs: 500, maxPollIntervalMs: 1_000 }],
        })) as ProfileTableGroupResult;
        assert.equal(after.job.wait.job.status, 'completed', workers[0]!.output().slice(-2_000));
      },
    );
  }),
);
