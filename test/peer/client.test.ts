/**
 * The client against the reference implementation, TestGen 5.134: every call of the quality-job API, through a
 * client whose only credential is an OAuth refresh grant (a TestGen deployment has no /v2 login).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AuthenticationFailed,
  Conflict,
  NotFound,
  ServiceClient,
  StrictImportRejected,
  isTerminalJobStatus,
  type ExportFile,
  type Job,
} from '../../src/api/index.js';
import { KNOWN_JOB_STATUSES } from '../../src/vocabulary.js';
import { testGenNeed, startTestGen, type OAuthGrant, type TestGenPeer } from '../helpers/testgen.js';
import { eventually } from '../helpers/wait.js';
import { needing } from '../helpers/needs.js';

describe(
  'the client against TestGen 5.134 (peer)',
  ...needing(testGenNeed(), () => {
    let peer: TestGenPeer;
    let grant: OAuthGrant;
    let client: ServiceClient;
    let exported: ExportFile;
    let emptySuiteId: string;

    const terminal = (id: string) =>
      eventually(
        `job ${id} to finish`,
        async () => {
          const job = await client.jobs.get(id);
          return isTerminalJobStatus(job.status) ? job : undefined;
        },
        { tries: 600, delayMs: 500 },
      );

    before(async () => {
      peer = await startTestGen();
      grant = await peer.authorize();
      client = new ServiceClient({
        baseUrl: peer.url,
        apiBearer: { type: 'oauth', ...grant },
      });
      const created = await peer.api<{ test_suite_id?: string; id?: string }>(
        'POST',
        `/table-groups/${peer.demo.tableGroupId}/test-suites`,
        grant.accessToken,
        { test_suite_name: 'peer-empty-target' },
      );
      emptySuiteId = (created.test_suite_id ?? created.id)!;
    });
    after(async () => {
      client?.close();
      await peer?.close();
    });

    test('health needs no token and may carry a null version', async () => {
      const health = await client.health();
      assert.equal(health.status, 'ok');
      assert.equal(health.edition, 'TestGen');
      assert.equal(health.version, null);
    });

    test('a profiling run: submit, poll to completed, and a summary with a fractional score', async () => {
      const submitted = await client.profilingRuns.submit(peer.demo.tableGroupId);
      const job = await terminal(submitted.id);
      assert.equal(job.status, 'completed', job.error_message ?? '');
      assert.equal(job.job_key, 'run-profile');
      assert.equal(job.source, 'api');
      const summary = await client.profilingRuns.summary(submitted.id);
      assert.equal(summary.table_group_id, peer.demo.tableGroupId);
      assert.ok(summary.result, 'a completed run has results');
      assert.equal(summary.result.table_ct, 5);
      assert.equal(summary.result.column_ct, 69);
      if (summary.result.score !== null)
        assert.ok(summary.result.score >= 0 && summary.result.score <= 1, `a fraction: ${summary.result.score}`);
      await assert.rejects(client.testRuns.summary(submitted.id), NotFound, 'a profiling job is no test run');
      // What tells the pipeline whether a generation job can follow: the group's default suite and its run count.
      const group = await client.tableGroups.get(peer.demo.tableGroupId);
      assert.ok('default_test_suite_id' in group, 'TestGen names the default suite (or null)');
      assert.ok(
        (await client.tableGroups.completedProfilingRuns(peer.demo.tableGroupId)) >= 2,
        'quick-start ran one before',
      );
    });

    test('a test run: submit, poll, summary counts; the job listing shows no target', async () => {
      const submitted = await client.testRuns.submit(peer.demo.testSuiteId);
      const job = await terminal(submitted.id);
      assert.equal(job.status, 'completed', job.error_message ?? '');
      const summary = await client.testRuns.summary(submitted.id);
      assert.equal(summary.test_suite_id, peer.demo.testSuiteId);
      const counts = summary.result?.result_counts;
      assert.ok(counts);
      assert.equal(counts.passed + counts.failed + counts.warning + counts.error + counts.log, peer.demo.definitions);
      const list = await client.jobs.list(peer.demo.projectCode, { job_key: 'run-tests', limit: 100 });
      const item = list.items.find((j) => j.id === submitted.id);
      assert.ok(item, 'the new job is listed');
      assert.equal((item as Record<string, unknown>).test_suite_id, undefined, 'TestGen lists no target');
    });

    test('cancel: a fresh job is cancelled; cancelling a finished job answers Conflict', async () => {
      const submitted = await client.testRuns.submit(peer.demo.testSuiteId);
      let job: Job;
      try {
        job = await client.jobs.cancel(submitted.id);
        assert.ok(['cancel_requested', 'canceled'].includes(job.status), job.status);
      } catch (err) {
        // The scheduler may have finished it first: then the job is terminal and the answer is a 409.
        assert.ok(err instanceof Conflict, String(err));
      }
      job = await terminal(submitted.id);
      assert.ok(['canceled', 'completed'].includes(job.status), job.status);
      await assert.rejects(client.jobs.cancel(submitted.id), (e) => e instanceof Conflict && e.status === 409);
    });

    test("every job status in TestGen's own OpenAPI document is in our vocabulary, and no other", async () => {
      const openapi = (await (await fetch(`${peer.url}/api/openapi.json`)).json()) as {
        components: { schemas: Record<string, { enum?: string[] }> };
      };
      const statuses = openapi.components.schemas.JobStatus?.enum;
      assert.ok(statuses, 'TestGen publishes its JobStatus enum');
      assert.deepEqual([...statuses].sort(), [...KNOWN_JOB_STATUSES].sort());
    });

    test('export: the whole demo suite, table-level tests without a column included', async () => {
      exported = await client.testDefinitions.export(peer.demo.testSuiteId);
      assert.equal(exported.version, 1);
      assert.equal(exported.definitions.length, peer.demo.definitions);
      const tableLevel = exported.definitions.filter((d) => d.column_name === undefined);
      assert.ok(tableLevel.length > 0, 'some definitions have no column (e.g. Dupe_Rows)');
      const auto = await client.testDefinitions.export(peer.demo.testSuiteId, { origin: 'auto' });
      assert.ok(auto.definitions.length > 0 && auto.definitions.length <= exported.definitions.length);
    });

    test('import into an empty suite: preview changes nothing; apply creates every definition; strict is all-or-nothing', async () => {
      const config = { on_match: 'overwrite_unlocked', on_new: 'create', on_absence: 'do_nothing' } as const;
      const preview = await client.testDefinitions.import(emptySuiteId, { ...config, mode: 'preview' }, exported);
      // 7 demo definitions name columns that the latest profile no longer has (quick-start simulates schema drift), and
      // TestGen skips them as invalid_column (one of its three extra reasons).
      const byReason = (items: { action: string; reason: string; tds: unknown[] }[]) =>
        items.map((i) => [i.action, i.reason, i.tds.length]);
      assert.deepEqual(byReason(preview.items), [
        ['create', 'no_match', 207],
        ['skip', 'invalid_column', 7],
      ]);
      assert.deepEqual(preview.summary, { created: 207, updated: 0, skipped: 7, deleted: 0 });
      assert.equal(
        (await client.testDefinitions.export(emptySuiteId)).definitions.length,
        0,
        'preview changed nothing',
      );

      const applied = await client.testDefinitions.import(emptySuiteId, { ...config, mode: 'apply' }, exported);
      assert.deepEqual(applied.summary, preview.summary, 'apply did what preview said');
      assert.equal((await client.testDefinitions.export(emptySuiteId)).definitions.length, applied.summary.created);

      // Again, strict, with on_match skip: every definition now matches and would be skipped, so nothing is applied.
      const strict = client.testDefinitions.import(
        emptySuiteId,
        { mode: 'apply_strict', on_match: 'skip', on_new: 'create', on_absence: 'do_nothing' },
        exported,
      );
      await assert.rejects(strict, (e) => {
        assert.ok(e instanceof StrictImportRejected, String(e));
        assert.equal(e.status, 400);
        const report = e.importResult as {
          summary: Record<string, number>;
          items: { action: string; reason: string; tds: unknown[] }[];
        };
        assert.deepEqual(report.summary, { created: 0, updated: 0, skipped: 214, deleted: 0 });
        assert.deepEqual(
          report.items.map((i) => [i.action, i.reason, i.tds.length]),
          [
            ['skip', 'policy', 207],
            ['skip', 'invalid_column', 7],
          ],
        );
        return true;
      });
    });

    test('an access token that stops working mid-use is refreshed through the refresh-token grant', async () => {
      const own = await peer.authorize();
      const tokens = new ServiceClient({ baseUrl: peer.url, apiBearer: { type: 'oauth', ...own } });
      try {
        const submitted = await tokens.testRuns.submit(peer.demo.testSuiteId);
        // Revoke every access token of this grant's user session the way TestGen does: the next call gets a real 401.
        const first = await tokens.jobs.get(submitted.id);
        assert.equal(first.id, submitted.id);
        const revoke = await fetch(`${peer.url}/oauth/revoke`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from(`${own.clientId}:${own.clientSecret}`).toString('base64')}`,
          },
          body: new URLSearchParams({ token: await currentAccessToken(tokens) }).toString(),
        });
        assert.ok(revoke.status < 300, `revoke answered ${revoke.status}`);
        const again = await tokens.jobs.get(submitted.id);
        assert.equal(again.id, submitted.id, 'the call went through after one refresh');
        assert.equal(tokensRefreshes(tokens), 2, 'one refresh at start, one after the 401');
      } finally {
        tokens.close();
      }
    });

    test('a refresh token that is refused fails as AuthenticationFailed, naming no secret', async () => {
      const bad = new ServiceClient({
        baseUrl: peer.url,
        apiBearer: { type: 'oauth', ...grant, refreshToken: 'not-a-real-refresh-token' },
      });
      try {
        await assert.rejects(bad.jobs.list(peer.demo.projectCode), (e) => {
          assert.ok(e instanceof AuthenticationFailed, String(e));
          assert.ok(!String(e.message).includes('not-a-real-refresh-token'));
          return true;
        });
      } finally {
        bad.close();
      }
    });
  }),
);

/** The client keeps tokens private; the tests read them through the one accessor made for tests. */
function currentAccessToken(client: ServiceClient): Promise<string> {
  const source = client.oauthTokenSource;
  assert.ok(source, 'an oauth client');
  return source.token();
}
function tokensRefreshes(client: ServiceClient): number {
  return client.oauthTokenSource?.refreshes ?? 0;
}
