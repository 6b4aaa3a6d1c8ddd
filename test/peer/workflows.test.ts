/**
 * The workflows against the reference implementation, TestGen 5.134, with the real worker configured as an operator
 * would for a TestGen-only deployment: no /v2 login, an OAuth refresh grant for /api/v1, scores as fractions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CancelledFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ServiceClient, isTerminalJobStatus } from '../../src/api/index.js';
import {
  approveUpdate,
  previewQuery,
  progressQuery,
  type DataQualityPipelineResult,
  type ProfileTableGroupResult,
  type PromoteTestDefinitionsResult,
  type RunTestSuiteResult,
} from '../../src/contract/index.js';
import { startDevServerEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';
import { testGenNeed, startTestGen, type OAuthGrant, type TestGenPeer } from '../helpers/testgen.js';
import { startPeerWorker, type PeerWorker } from '../helpers/peer-worker.js';
import { eventually } from '../helpers/wait.js';
import { needing } from '../helpers/needs.js';

const polling = { pollIntervalMs: 500, maxPollIntervalMs: 1_000 };

describe(
  'the workflows against TestGen 5.134 (peer)',
  ...needing(testGenNeed(), () => {
    let t: TestEnv;
    let peer: TestGenPeer;
    let grant: OAuthGrant;
    let client: ServiceClient;
    let worker: PeerWorker;
    let taskQueue: string;

    before(async () => {
      [t, peer] = await Promise.all([startDevServerEnv(), startTestGen()]);
      grant = await peer.authorize();
      client = new ServiceClient({ baseUrl: peer.url, apiBearer: { type: 'oauth', ...(await peer.authorize()) } });
      worker = await startPeerWorker(t, peer, grant, () => ({ DATAOPS_TEMPORAL_UI_URL: 'http://localhost:8233' }));
      taskQueue = worker.taskQueue;
    });
    after(async () => {
      await worker?.stop();
      client?.close();
      await peer?.close();
      await t?.env.teardown();
    });

    const start = <T>(type: string, input: unknown) =>
      t.env.client.workflow.start(type, {
        taskQueue,
        workflowId: `${type}-${uniqueTaskQueue('wf')}`,
        args: [input],
      }) as Promise<WorkflowHandle<() => Promise<T>>>;

    // First, while the demo suite is as quick-start left it (the pipeline below generates more tests into it).
    test('a promotion of the whole demo suite: export, preview, approval, apply, with exact counts', async () => {
      const created = await peer.api<{ test_suite_id?: string; id?: string }>(
        'POST',
        `/table-groups/${peer.demo.tableGroupId}/test-suites`,
        await client.oauthTokenSource!.token(),
        { test_suite_name: 'peer-promotion-target' },
      );
      const target = (created.test_suite_id ?? created.id)!;
      const handle = await start<PromoteTestDefinitionsResult>('dataops.promoteTestDefinitions', {
        source: { testSuiteId: peer.demo.testSuiteId },
        targetTestSuiteId: target,
        preset: 'promotion',
        approval: { required: true },
      });
      const preview = await eventually('the preview', () => handle.query(previewQuery).catch(() => null), {
        tries: 600,
        delayMs: 200,
      });
      // All 214 demo definitions are new to the empty target; 7 name columns that quick-start's latest profile no
      // longer has (its simulated schema drift), and TestGen skips them as invalid_column.
      assert.equal(peer.demo.definitions, 214);
      assert.deepEqual(preview.counts, { 'create/no_match': 207, 'skip/invalid_column': 7 });
      assert.deepEqual(preview.summary, { created: 207, updated: 0, skipped: 7, deleted: 0 });
      await handle.executeUpdate(approveUpdate, { args: [{ previewId: preview.previewId, by: 'peer test' }] });
      const result = await handle.result();
      assert.equal(result.status, 'applied');
      assert.deepEqual(result.applied?.counts, preview.counts, 'applied what was approved');
      const after = await client.testDefinitions.export(target);
      assert.equal(after.definitions.length, preview.summary.created);
    });

    test('profileTableGroup with the heartbeat strategy: completed, with the score in percent', async () => {
      const handle = await start<ProfileTableGroupResult>('dataops.profileTableGroup', {
        ...polling,
        tableGroupId: peer.demo.tableGroupId,
        waitStrategy: 'heartbeat',
      });
      const result = await handle.result();
      assert.equal(result.job.wait.job.status, 'completed');
      const raw = await client.profilingRuns.summary(result.job.jobId);
      assert.equal(result.summary.tableCount, 5);
      assert.equal(
        result.summary.scorePercent,
        raw.result?.score === null || raw.result?.score === undefined
          ? null
          : Math.round(raw.result.score * 10_000) / 100,
        "TestGen's fraction, in percent",
      );
    });

    test('runTestSuite with the deferrable strategy: completed, every demo test counted', async () => {
      const handle = await start<RunTestSuiteResult>('dataops.runTestSuite', {
        ...polling,
        testSuiteId: peer.demo.testSuiteId,
        waitStrategy: 'deferrable',
      });
      const result = await handle.result();
      assert.equal(result.job.wait.job.status, 'completed');
      const c = result.summary.resultCounts;
      assert.ok(c);
      assert.equal(c.passed + c.failed + c.warning + c.error + c.log, peer.demo.definitions);
      // The run in TestGen points back to its workflow.
      const raw = (await client.testRuns.summary(result.job.jobId)) as Record<string, unknown>;
      const { runId } = await handle.describe();
      const { submission_id: submissionId, ...caller } = raw.metadata as Record<string, unknown>;
      assert.deepEqual(caller, {
        workflow_id: handle.workflowId,
        run_id: runId,
        workflow_type: 'dataops.runTestSuite',
        namespace: 'default',
      });
      // The id our lookup recognises the run by, should its submission answer be lost: its asking activity's.
      assert.match(String(submissionId), new RegExp(`^${handle.workflowId}/${runId}/ask-[0-9a-f-]{36}$`));
      assert.equal(
        raw.external_url,
        `http://localhost:8233/namespaces/default/workflows/${handle.workflowId}/${runId}/history`,
      );
    });

    test('the pipeline generates tests, runs them, and gates on the real score in percent', async () => {
      const passing = await start<DataQualityPipelineResult>('dataops.dataQualityPipeline', {
        ...polling,
        tableGroupId: peer.demo.tableGroupId,
        testSuiteId: peer.demo.testSuiteId,
        testGeneration: 'generate',
        gates: { minScorePercent: 50 },
        onGateFailure: 'report',
      });
      const result = await passing.result();
      assert.equal(result.generation?.wait.job.status, 'completed', 'our own generation job, followed to the end');
      assert.equal(result.generation?.wait.job.job_key, 'run-test-generation');
      const score = result.testRun.summary.scorePercent;
      // TestGen rolls scores up in a separate system job: right after a run completes its score may still be null.
      if (score === null) {
        assert.equal(result.status, 'failed', 'no score is never a pass');
        assert.deepEqual(result.gates.violations, ['no score is available, and the minimum is 50%']);
        return;
      }
      const raw = await client.testRuns.summary(result.testRun.job.jobId);
      assert.ok(typeof raw.result?.score === 'number', 'a rolled-up score never goes back to null');
      assert.equal(score, Math.round(raw.result.score * 10_000) / 100);
      assert.ok(score !== null && score > 50 && score <= 100, `a demo score in percent: ${score}`);
      assert.equal(result.status, 'passed');

      // A gate just above the real score fails, in the same unit.
      const failing = await start<DataQualityPipelineResult>('dataops.dataQualityPipeline', {
        ...polling,
        tableGroupId: peer.demo.tableGroupId,
        testSuiteId: peer.demo.testSuiteId,
        testGeneration: 'skip',
        gates: { minScorePercent: Math.min(100, (score ?? 0) + 5) },
      });
      await assert.rejects(failing.result(), (e) => {
        assert.ok(e instanceof WorkflowFailedError);
        // Below the minimum, or (before TestGen's roll-up) not available: a failed gate either way, never a pass.
        assert.match(String(e.cause?.message), /is below the minimum|no score is available/);
        return true;
      });
    });

    test('cancelling a workflow mid-run cancels the TestGen job, which ends canceled', async () => {
      // A profiling run beside it keeps TestGen's scheduler busy (the test run is claimed a second or two before it
      // runs). The job is found in TestGen's list, and the cancel may come before the workflow has heard of it.
      const testRuns = async () =>
        (await client.jobs.list(peer.demo.projectCode, { job_key: 'run-tests', limit: 20 })).items.map((j) => j.id);
      const earlier = new Set(await testRuns());
      const blocker = await client.profilingRuns.submit(peer.demo.tableGroupId);
      const handle = await start<RunTestSuiteResult>('dataops.runTestSuite', {
        ...polling,
        testSuiteId: peer.demo.testSuiteId,
      });
      const jobId = await eventually('the test run', async () => (await testRuns()).find((id) => !earlier.has(id)), {
        tries: 400,
        delayMs: 100,
      });
      assert.ok(!isTerminalJobStatus((await client.jobs.get(jobId)).status), 'still running when cancelled');
      await handle.cancel();
      await assert.rejects(
        handle.result(),
        (e) => e instanceof WorkflowFailedError && e.cause instanceof CancelledFailure,
      );
      assert.equal((await client.jobs.get(jobId)).status, 'canceled');
      const progress = await handle.query(progressQuery);
      assert.deepEqual(
        progress.jobs.map((j) => j.jobId),
        [jobId],
        'the wait named the job it submitted as it was cancelled',
      );
      assert.equal(progress.remoteCancel?.finalStatus, 'canceled');
      await eventually('the blocking profiling run to finish', async () =>
        isTerminalJobStatus((await client.jobs.get(blocker.id)).status),
      );
    });

    test('an access token revoked mid-wait is replaced through the refresh grant; the wait goes on', async () => {
      const workerClient = worker.deps.profiles.default?.client;
      assert.ok(workerClient?.oauthTokenSource);
      const handle = await start<ProfileTableGroupResult>('dataops.profileTableGroup', {
        ...polling,
        tableGroupId: peer.demo.tableGroupId,
        waitStrategy: 'heartbeat',
      });
      await eventually('the job id', async () => (await handle.query(progressQuery)).jobs[0]?.jobId, {
        tries: 400,
        delayMs: 100,
      });
      const before = workerClient.oauthTokenSource.refreshes;
      const revoked = await fetch(`${peer.url}/oauth/revoke`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${grant.clientId}:${grant.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ token: await workerClient.oauthTokenSource.token() }).toString(),
      });
      assert.ok(revoked.status < 300, `revoke answered ${revoked.status}`);
      const result = await handle.result();
      assert.equal(result.job.wait.job.status, 'completed');
      assert.ok(workerClient.oauthTokenSource.refreshes > before, 'the worker refreshed after the 401');
    });

    test("a new table group's first profiling run: the pipeline follows TestGen's own generation job, then tests", async () => {
      // A fresh table group on the demo connection, with a default suite: its first profiling run queues generation.
      const own = await peer.authorize();
      const demo = await peer.api<{ connection_id: number; schema_name: string }>(
        'GET',
        `/table-groups/${peer.demo.tableGroupId}`,
        own.accessToken,
      );
      const group = await peer.api<{ table_group_id: string }>(
        'POST',
        `/connections/${demo.connection_id}/table-groups`,
        own.accessToken,
        { table_group_name: `peer-gen-${Date.now() % 100_000}`, schema_name: demo.schema_name },
      );
      const suite = await peer.api<{ test_suite_id?: string; id?: string }>(
        'POST',
        `/table-groups/${group.table_group_id}/test-suites`,
        own.accessToken,
        { test_suite_name: 'peer-generated', set_as_default: true },
      );
      const handle = await start<DataQualityPipelineResult>('dataops.dataQualityPipeline', {
        tableGroupId: group.table_group_id,
        testSuiteId: suite.test_suite_id ?? suite.id,
        testGeneration: 'wait',
        generationGraceMs: 60_000,
        ...polling,
      });
      const result = await handle.result();
      assert.equal(result.generation?.wait.job.job_key, 'run-test-generation');
      assert.equal(result.generation?.wait.job.status, 'completed', "TestGen's own follow-up, followed to the end");
      const raw = (await client.jobs.get(result.generation.jobId)) as Record<string, unknown>;
      assert.equal(raw.source, 'system', 'queued by TestGen itself, not by us');
      // Either way is correct: TestGen decides whether the follow-up is listed, and ends, within the profiling wait's window.
      const waits = ((await handle.fetchHistory()).events ?? []).filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'dataops.waitForJob',
      ).length;
      console.log(`TestGen's follow-up was followed by ${waits === 0 ? 'the profiling wait' : 'a wait of its own'}`);
      const counts = result.testRun.summary.resultCounts;
      assert.ok(
        counts && counts.passed + counts.failed + counts.warning + counts.error + counts.log > 0,
        'generated tests ran',
      );
    });
  }),
);
