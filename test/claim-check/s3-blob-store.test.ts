/**
 * The S3-compatible claim-check store against a real S3 server (moto, from PyPI) over real sockets: what one host
 * writes another reads, missing and damaged objects fail as such, a refusing or absent store is named, and the
 * retention rule is the bucket's lifecycle rule, set beside the rules already there.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  GetBucketLifecycleConfigurationCommand,
  PutBucketLifecycleConfigurationCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { LocalDirectoryBlobStore } from '../../src/claim-check/blob-store.js';
import { BlobCorrupt, BlobNotFound, BlobStoreRefused, BlobStoreUnavailable } from '../../src/claim-check/errors.js';
import { S3BlobStore, retentionRuleId, type S3StoreOptions } from '../../src/claim-check/s3-blob-store.js';
import { ConfigError } from '../../src/config/env.js';
import { openClaimChecks } from '../../src/setup/claim-checks.js';
import { objectStoreNeed, startObjectStore, type ObjectStoreServer } from '../helpers/object-store.js';
import { startCuttableProxy } from '../helpers/cuttable-proxy.js';
import { freePort } from '../helpers/processes.js';
import { needing } from '../helpers/needs.js';

const doc = { definitions: Array.from({ length: 500 }, (_, i) => ({ id: i, name: `test ${i}`, threshold: i / 7 })) };

describe(
  'the S3-compatible claim-check store (moto server)',
  ...needing(objectStoreNeed(), () => {
    let s3: ObjectStoreServer;
    const stores: S3BlobStore[] = [];
    const store = (o: Partial<S3StoreOptions> & { bucket: string }) => {
      const made = new S3BlobStore({
        prefix: 'dataops/claim-checks/',
        region: s3.region,
        endpoint: s3.endpoint,
        forcePathStyle: true,
        timeoutMs: 5_000,
        credentials: s3.credentials,
        ...o,
      });
      stores.push(made);
      return made;
    };
    const quietly = () => undefined;

    before(async () => {
      s3 = await startObjectStore();
      // The worker's store finds credentials as the AWS SDK does everywhere: here, the standard variables.
      Object.assign(process.env, s3.awsEnv);
    });
    after(async () => {
      stores.forEach((s) => s.close());
      await s3?.close();
    });

    test('what one host writes another reads back; writing it again gives the same reference', async () => {
      const bucket = await s3.bucket();
      const [hostA, hostB] = [store({ bucket }), store({ bucket })]; // two clients, as on two machines
      const ref = await hostA.putJson(doc);
      assert.match(ref.ref, /^s3:dataops\/claim-checks\/sha256-[0-9a-f]{64}\.json\.gz$/);
      assert.equal(ref.bytes, Buffer.byteLength(JSON.stringify(doc)));
      assert.deepEqual(await hostB.getJson(ref), doc);
      assert.deepEqual(await hostA.putJson(doc), ref);
    });

    test("with checksums 'when_required', a write carries no CRC checksum header (for stores that refuse them)", async () => {
      const bucket = await s3.bucket();
      const proxy = await startCuttableProxy(s3.endpoint);
      try {
        const headerOf = async (checksums: 'when_supported' | 'when_required') => {
          const before = proxy.sent().length;
          const s = store({ bucket, endpoint: proxy.url, checksums });
          const ref = await s.putJson({ checksums });
          assert.deepEqual(await s.getJson(ref), { checksums });
          return /^x-amz-checksum-crc32:/im.test(proxy.sent().slice(before));
        };
        assert.equal(await headerOf('when_supported'), true, "the AWS SDK's default sends one");
        assert.equal(await headerOf('when_required'), false);
      } finally {
        await proxy.close();
      }
    });

    test('a missing object is BlobNotFound, a damaged one BlobCorrupt, a local reference is not read from S3', async () => {
      const bucket = await s3.bucket();
      const s = store({ bucket });
      const ref = await s.putJson(doc);
      const other = { ...ref, ref: ref.ref.replace(/sha256-[0-9a-f]{8}/, 'sha256-00000000') };
      await assert.rejects(
        s.getJson(other),
        (e: Error) => e instanceof BlobNotFound && /no such object/.test(e.message),
      );

      const key = ref.ref.slice('s3:'.length);
      await s3.client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'not gzip at all' }));
      await assert.rejects(s.getJson(ref), (e: Error) => e instanceof BlobCorrupt && /not gzip/.test(e.message));

      const local = await new LocalDirectoryBlobStore(mkdtempSync(join(tmpdir(), 'blobs-'))).putJson(doc);
      await assert.rejects(s.getJson(local), BlobNotFound);
      await assert.rejects(s.getJson({ ...ref, ref: 's3:../../etc/passwd' }), BlobNotFound);
    });

    test('a bucket that does not exist is refused (not retried); a store that does not answer is unavailable (retried)', async () => {
      const missing = store({ bucket: 'no-such-bucket-here' });
      await assert.rejects(
        missing.probe(),
        (e: Error) => e instanceof BlobStoreRefused && /no-such-bucket-here/.test(e.message),
      );
      await assert.rejects(missing.putJson(doc), BlobStoreRefused);

      const down = store({ bucket: 'any-bucket', endpoint: `http://127.0.0.1:${await freePort()}` });
      await assert.rejects(
        down.putJson(doc),
        (e: Error) => e instanceof BlobStoreUnavailable && !/test-secret-key/.test(e.message),
      );
    });

    test("the retention rule is the bucket's lifecycle rule on the prefix, and the bucket's other rules are kept", async () => {
      const bucket = await s3.bucket();
      const foreign = {
        ID: 'someone-elses',
        Status: 'Enabled' as const,
        Filter: { Prefix: 'logs/' },
        Expiration: { Days: 3 },
      };
      await s3.client.send(
        new PutBucketLifecycleConfigurationCommand({ Bucket: bucket, LifecycleConfiguration: { Rules: [foreign] } }),
      );
      const rules = async () =>
        (await s3.client.send(new GetBucketLifecycleConfigurationCommand({ Bucket: bucket }))).Rules ?? [];
      const s = store({ bucket });

      assert.equal(await s.ensureRetention(30), true);
      assert.equal(await s.ensureRetention(30), false, 'already in place: nothing written');
      let now = await rules();
      assert.deepEqual(now.map((r) => r.ID).sort(), [retentionRuleId('dataops/claim-checks/'), 'someone-elses'].sort());
      const ours = now.find((r) => r.ID === retentionRuleId('dataops/claim-checks/'));
      assert.equal(ours?.Expiration?.Days, 30);
      assert.equal(ours?.Filter?.Prefix, 'dataops/claim-checks/');
      assert.equal(ours?.Status, 'Enabled');

      assert.equal(await s.ensureRetention(45), true, 'a changed retention is written');
      now = await rules();
      assert.equal(now.length, 2);
      assert.equal(now.find((r) => r.ID === ours?.ID)?.Expiration?.Days, 45);
      assert.equal(now.find((r) => r.ID === 'someone-elses')?.Expiration?.Days, 3);
    });

    test("the worker's store: writes to S3, still reads local references, sets the rule; a missing bucket stops it", async () => {
      const bucket = await s3.bucket();
      const blobDir = mkdtempSync(join(tmpdir(), 'blobs-'));
      const before = await new LocalDirectoryBlobStore(blobDir).putJson({ written: 'before the move' });
      const objectStore = {
        bucket,
        prefix: 'p/',
        region: s3.region,
        endpoint: s3.endpoint,
        forcePathStyle: true,
        timeoutMs: 5_000,
      };
      const logged: string[] = [];
      const opened = await openClaimChecks({ blobDir, blobRetentionDays: 7, objectStore }, (m) => logged.push(m));
      try {
        const ref = await opened.store.putJson(doc);
        assert.match(ref.ref, /^s3:p\/sha256-/);
        assert.deepEqual(await opened.store.getJson(ref), doc);
        assert.deepEqual(await opened.store.getJson(before), { written: 'before the move' });
        assert.ok(logged.includes('set the claim-check lifecycle rule'), logged.join('; '));
      } finally {
        opened.close();
      }

      await assert.rejects(
        openClaimChecks({ blobDir, objectStore: { ...objectStore, bucket: 'not-created-yet' } }, quietly),
        (e: Error) => e instanceof ConfigError && /DATAOPS_BLOB_STORE: .*not-created-yet.*refused/.test(e.message),
      );
    });
  }),
);
