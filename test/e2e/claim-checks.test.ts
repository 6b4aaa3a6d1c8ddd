/**
 * The claim-check store across hosts, on the dev server with real workers: a promotion exports and previews on one
 * host, which then goes away; its approval is applied by another host with a directory of its own. With the local
 * store that fails BlobNotFound (the export is on the first host's disk); with the object store it applies.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { GetBucketLifecycleConfigurationCommand } from '@aws-sdk/client-s3';
import { loadWorkerConfig } from '../../src/config/worker.js';
import { approveUpdate, previewQuery, type PromoteTestDefinitionsResult } from '../../src/contract/index.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { createWorker } from '../../src/worker.js';
import { objectStoreNeed, startObjectStore, type ObjectStoreServer } from '../helpers/object-store.js';
import { simulatorService } from '../helpers/processes.js';
import { startCuttableProxy } from '../helpers/cuttable-proxy.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startDevServerEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';
import { needing } from '../helpers/needs.js';

const TS = SEED_IDS.testSuites;

describe(
  'claim checks across hosts (dev server, object store)',
  ...needing(objectStoreNeed(), () => {
    let t: TestEnv;
    let sim: RunningSimulator;
    let s3: ObjectStoreServer;
    before(async () => {
      [t, { sim }, s3] = await Promise.all([startDevServerEnv(), startTestSimulator(), startObjectStore()]);
      Object.assign(process.env, s3.awsEnv); // the workers' S3 credentials, found as the AWS SDK finds them anywhere
    });
    after(async () => {
      await sim?.close();
      await s3?.close();
      await t?.env.teardown();
    });

    /** A worker host with a blob directory of its own. */
    async function host(taskQueue: string, store: Record<string, string>, service = sim) {
      const config = loadWorkerConfig({
        TEMPORAL_ADDRESS: t.env.connection.options.address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        ...simulatorService(service.url),
        DATAOPS_BLOB_DIR: mkdtempSync(join(tmpdir(), 'host-blobs-')),
        DATAOPS_SEARCH_ATTRIBUTES: 'off',
        ...store,
      });
      const { worker, deps } = await createWorker(config, t.env.nativeConnection);
      const run = worker.run();
      return {
        stop: async () => {
          worker.shutdown();
          await run;
          await deps.close();
        },
      };
    }

    /** Exports and previews on host A, stops it, and approves with only host B running; the promotion's ending. */
    async function promoteAcrossHosts(store: Record<string, string>) {
      const taskQueue = uniqueTaskQueue('claims');
      const a = await host(taskQueue, store);
      const promotion = await t.env.client.workflow.start('dataops.promoteTestDefinitions', {
        taskQueue,
        workflowId: `promotion-${taskQueue}`,
        args: [{ source: { testSuiteId: TS.salesDev }, targetTestSuiteId: TS.salesProd, preset: 'promotion' }],
      });
      const preview = await eventually('the preview', () => promotion.query(previewQuery), { tries: 400, delayMs: 50 });
      await a.stop();
      const b = await host(taskQueue, store);
      try {
        await promotion.executeUpdate(approveUpdate, { args: [{ previewId: preview.previewId, by: 'ops' }] });
        const ending: { result?: PromoteTestDefinitionsResult; failure?: Error } = await promotion.result().then(
          (result) => ({ result: result as PromoteTestDefinitionsResult }),
          (err: Error & { cause?: Error & { cause?: Error } }) => ({ failure: err.cause?.cause ?? err.cause ?? err }),
        );
        return { preview, ...ending };
      } finally {
        await b.stop();
      }
    }

    test('the local store: the approval on another host fails BlobNotFound, the export being on the first', async () => {
      const { failure } = await promoteAcrossHosts({});
      assert.equal(failure?.name, 'ApplicationFailure');
      assert.equal((failure as { type?: string }).type, 'BlobNotFound', failure?.message);
    });

    test('the object store: the other host applies what the first exported; the retention rule is on the bucket', async () => {
      const bucket = await s3.bucket();
      const { preview, result, failure } = await promoteAcrossHosts({
        DATAOPS_BLOB_STORE: 's3',
        DATAOPS_S3_BUCKET: bucket,
        DATAOPS_S3_ENDPOINT: s3.endpoint,
        DATAOPS_BLOB_RETENTION_DAYS: '14',
      });
      assert.equal(failure, undefined, `the promotion failed: ${failure?.message}`);
      assert.equal(result?.status, 'applied');
      assert.equal(result?.applied?.summary.created, preview.summary.created);
      assert.ok(preview.summary.created > 0, 'something to promote');
      const rules = await s3.client.send(new GetBucketLifecycleConfigurationCommand({ Bucket: bucket }));
      assert.deepEqual(
        rules.Rules?.map((r) => [r.Filter?.Prefix, r.Expiration?.Days]),
        [['dataops/claim-checks/', 14]],
      );
    });

    test('the store goes away during the export and during the apply: both retried, the promotion applies once', async () => {
      const bucket = await s3.bucket();
      const proxy = await startCuttableProxy(s3.endpoint);
      const { sim: fresh } = await startTestSimulator(); // its target suite as seeded: the promotion has work to do
      const taskQueue = uniqueTaskQueue('claims-down');
      const worker = await host(
        taskQueue,
        { DATAOPS_BLOB_STORE: 's3', DATAOPS_S3_BUCKET: bucket, DATAOPS_S3_ENDPOINT: proxy.url },
        fresh,
      );
      try {
        proxy.cut();
        const promotion = await t.env.client.workflow.start('dataops.promoteTestDefinitions', {
          taskQueue,
          workflowId: `promotion-${taskQueue}`,
          args: [{ source: { testSuiteId: TS.salesDev }, targetTestSuiteId: TS.salesProd, preset: 'promotion' }],
        });
        // The activity that could not reach the store failed retryably, and is pending its next attempt.
        const storeDown = () =>
          eventually(
            'an activity failed on the unreachable store',
            async () =>
              (await promotion.describe()).raw.pendingActivities?.find(
                (a) => a.lastFailure?.applicationFailureInfo?.type === 'BlobStoreUnavailable',
              ),
            { tries: 400, delayMs: 50 },
          );
        const atExport = await storeDown();
        assert.match(atExport.lastFailure?.message ?? '', /s3:\/\/claims-.*writing .*failed/);
        proxy.restore();
        const preview = await eventually('the preview', () => promotion.query(previewQuery), {
          tries: 600,
          delayMs: 50,
        });

        proxy.cut();
        await promotion.executeUpdate(approveUpdate, { args: [{ previewId: preview.previewId, by: 'ops' }] });
        const atApply = await storeDown();
        assert.match(atApply.lastFailure?.message ?? '', /reading .*failed/);
        proxy.restore();
        const result = (await promotion.result()) as PromoteTestDefinitionsResult;
        assert.equal(result.status, 'applied');
        assert.ok(preview.summary.created > 0);
        assert.equal(result.applied?.summary.created, preview.summary.created, 'applied once, as previewed');
        assert.equal(result.applied?.reconciled ?? false, false, 'the apply itself was never in doubt');
      } finally {
        proxy.restore();
        await worker.stop();
        await proxy.close();
        await fresh.close();
      }
    });
  }),
);
