/** Where claim checks go: the local directory by default, or an S3-compatible store, each wrong key named. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Problems } from '../../src/config/env.js';
import { readObjectStoreConfig } from '../../src/config/object-store.js';
import { describeConfig, loadWorkerConfig } from '../../src/config/worker.js';

const read = (env: Record<string, string>) => {
  const problems = new Problems();
  return { config: readObjectStoreConfig(env, problems), problems: problems.list };
};

describe('claim-check store settings', () => {
  test('the local directory unless DATAOPS_BLOB_STORE=s3', () => {
    assert.deepEqual(read({}), { config: undefined, problems: [] });
    assert.deepEqual(read({ DATAOPS_BLOB_STORE: 'local' }), { config: undefined, problems: [] });
  });

  test('S3: defaults for AWS, path style for any other endpoint, the region from AWS_REGION', () => {
    assert.deepEqual(read({ DATAOPS_BLOB_STORE: 's3', DATAOPS_S3_BUCKET: 'dq-claims' }), {
      config: {
        bucket: 'dq-claims',
        prefix: 'dataops/claim-checks/',
        region: 'us-east-1',
        forcePathStyle: false,
        timeoutMs: 30_000,
      },
      problems: [],
    });
    const minio = read({
      DATAOPS_BLOB_STORE: 's3',
      DATAOPS_S3_BUCKET: 'dq-claims',
      DATAOPS_S3_ENDPOINT: 'http://minio:9000/',
      DATAOPS_S3_PREFIX: 'team-a/claims',
      AWS_REGION: 'eu-west-1',
    }).config;
    assert.deepEqual(minio, {
      bucket: 'dq-claims',
      prefix: 'team-a/claims/',
      region: 'eu-west-1',
      endpoint: 'http://minio:9000',
      forcePathStyle: true,
      timeoutMs: 30_000,
    });
    assert.equal(
      read({ DATAOPS_BLOB_STORE: 's3', DATAOPS_S3_BUCKET: 'b12', DATAOPS_S3_PREFIX: '/' }).config?.prefix,
      '',
    );
    const virtualHosted = read({
      DATAOPS_BLOB_STORE: 's3',
      DATAOPS_S3_BUCKET: 'b12',
      DATAOPS_S3_ENDPOINT: 'https://s3.example',
      DATAOPS_S3_FORCE_PATH_STYLE: 'false',
      DATAOPS_S3_REGION: 'auto',
      AWS_REGION: 'eu-west-1',
    }).config;
    assert.equal(virtualHosted?.forcePathStyle, false);
    assert.equal(virtualHosted?.checksums, undefined, "the AWS SDK's default");
    assert.equal(
      read({ DATAOPS_BLOB_STORE: 's3', DATAOPS_S3_BUCKET: 'b12', DATAOPS_S3_CHECKSUMS: 'when_required' }).config
        ?.checksums,
      'when_required',
    );
    assert.equal(virtualHosted?.region, 'auto');
  });

  test('every wrong key is named, credentials in the endpoint are refused unshown, stray S3 keys are pointed out', () => {
    assert.deepEqual(read({ DATAOPS_BLOB_STORE: 'gcs' }).problems, [
      "DATAOPS_BLOB_STORE: expected one of local, s3, got 'gcs'",
    ]);
    assert.deepEqual(read({ DATAOPS_BLOB_STORE: 's3' }).problems, [
      'DATAOPS_S3_BUCKET: required with DATAOPS_BLOB_STORE=s3',
    ]);
    const bad = read({
      DATAOPS_BLOB_STORE: 's3',
      DATAOPS_S3_BUCKET: 'Claims_Bucket',
      DATAOPS_S3_PREFIX: 'a b/',
      DATAOPS_S3_ENDPOINT: 'http://key:s3cr3t@minio:9000',
      DATAOPS_S3_TIMEOUT_MS: '0',
      DATAOPS_S3_CHECKSUMS: 'never',
    }).problems;
    assert.equal(bad.length, 5, bad.join('\n'));
    assert.match(bad.join('\n'), /DATAOPS_S3_CHECKSUMS: expected one of when_supported, when_required, got 'never'/);
    assert.match(bad.join('\n'), /DATAOPS_S3_BUCKET: expected an S3 bucket name .* got 'Claims_Bucket'/);
    assert.match(bad.join('\n'), /DATAOPS_S3_PREFIX: expected key segments .* got 'a b\/'/);
    assert.match(bad.join('\n'), /DATAOPS_S3_ENDPOINT: must not carry credentials/);
    assert.match(bad.join('\n'), /DATAOPS_S3_TIMEOUT_MS: expected a whole number/);
    assert.ok(!bad.join('\n').includes('s3cr3t'));
    assert.deepEqual(read({ DATAOPS_S3_BUCKET: 'dq-claims', DATAOPS_S3_ENDPOINT: 'http://minio:9000' }).problems, [
      'DATAOPS_S3_BUCKET, DATAOPS_S3_ENDPOINT: set, but DATAOPS_BLOB_STORE is not s3: set DATAOPS_BLOB_STORE=s3, or unset them',
    ]);
  });

  test("the worker's configuration carries it and logs where it is, never a credential", () => {
    const login = { DATAOPS_USERNAME: 'u', DATAOPS_PASSWORD: 'p' };
    const config = loadWorkerConfig({
      ...login,
      DATAOPS_BLOB_STORE: 's3',
      DATAOPS_S3_BUCKET: 'dq-claims',
      DATAOPS_S3_ENDPOINT: 'http://minio:9000',
      AWS_SECRET_ACCESS_KEY: 'never-logged',
    });
    assert.equal(config.objectStore?.bucket, 'dq-claims');
    const shown = JSON.stringify(describeConfig(config));
    assert.match(shown, /"blobStore":"s3:\/\/dq-claims\/dataops\/claim-checks\/ at http:\/\/minio:9000"/);
    assert.ok(!shown.includes('never-logged'));
    assert.match(JSON.stringify(describeConfig(loadWorkerConfig(login))), /"blobStore":"local"/);
  });
});
