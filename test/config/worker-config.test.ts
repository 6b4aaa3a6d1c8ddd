import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError } from '../../src/config/env.js';
import { temporalConnectionOptions } from '../../src/config/temporal.js';
import { describeConfig, loadWorkerConfig } from '../../src/config/worker.js';

const minimal = { DATAOPS_USERNAME: 'alice', DATAOPS_PASSWORD: 's3cret' };

describe('worker configuration', () => {
  test('documented defaults for every key', () => {
    const c = loadWorkerConfig(minimal);
    assert.equal(c.temporal.address, 'localhost:7233');
    assert.equal(c.temporal.namespace, 'default');
    assert.equal(c.temporal.taskQueue, 'dataops-temporal');
    assert.equal(c.waitsTaskQueue, 'dataops-temporal-waits');
    assert.equal(c.temporal.tls, undefined);
    assert.equal(c.service.baseUrl, 'http://127.0.0.1:8700');
    assert.equal(c.service.timeoutMs, 30_000);
    assert.equal(c.service.tokenLifetimeMs, 4 * 3_600_000);
    assert.deepEqual(Object.keys(c.service.profiles), ['default']);
    assert.equal(c.logLevel, 'INFO');
    assert.equal(c.logFormat, 'pretty');
    assert.equal(c.prometheusAddress, undefined);
    assert.deepEqual(c.capacity, {
      maxConcurrentActivities: 200,
      maxConcurrentWaits: 2_000,
      maxConcurrentWorkflowTasks: 100,
      maxConcurrentLocalActivities: 100,
      maxCachedWorkflows: 1_000,
      workflowPollers: 4,
      activityPollers: 4,
    });
  });

  test('slots, pollers and the cache are set by their variables, within bounds', () => {
    const c = loadWorkerConfig({
      ...minimal,
      DATAOPS_MAX_CONCURRENT_ACTIVITIES: '6000',
      DATAOPS_MAX_CACHED_WORKFLOWS: '5000',
      DATAOPS_WORKFLOW_POLLERS: '8',
    });
    assert.equal(c.capacity.maxConcurrentActivities, 6_000);
    assert.equal(c.capacity.maxCachedWorkflows, 5_000);
    assert.equal(c.capacity.workflowPollers, 8);
    assert.throws(
      () => loadWorkerConfig({ ...minimal, DATAOPS_WORKFLOW_POLLERS: '1', DATAOPS_MAX_CACHED_WORKFLOWS: 'many' }),
      (e: unknown) =>
        e instanceof ConfigError &&
        /DATAOPS_WORKFLOW_POLLERS: expected a whole number from 2 to 100, got '1'/.test(e.message) &&
        /DATAOPS_MAX_CACHED_WORKFLOWS: expected a whole number/.test(e.message),
    );
  });

  test("the waits' task queue comes from the configuration, and may not be the main queue", () => {
    const named = loadWorkerConfig({ ...minimal, TEMPORAL_TASK_QUEUE: 'team', DATAOPS_WAITS_TASK_QUEUE: 'team.waits' });
    assert.equal(named.waitsTaskQueue, 'team.waits');
    assert.equal(loadWorkerConfig({ ...minimal, TEMPORAL_TASK_QUEUE: 'team' }).waitsTaskQueue, 'team-waits');
    assert.throws(
      () => loadWorkerConfig({ ...minimal, TEMPORAL_TASK_QUEUE: 'team', DATAOPS_WAITS_TASK_QUEUE: 'team' }),
      (e: Error) =>
        e instanceof ConfigError &&
        /DATAOPS_WAITS_TASK_QUEUE: 'team' is the main task queue too: the waits need a queue of their own/.test(
          e.message,
        ),
    );
  });

  test('a blob retention of 0 days is refused, not taken for no retention', () => {
    assert.equal(loadWorkerConfig({ ...minimal, DATAOPS_BLOB_RETENTION_DAYS: '30' }).blobRetentionDays, 30);
    assert.equal(loadWorkerConfig(minimal).blobRetentionDays, undefined, 'unset: kept');
    assert.throws(
      () => loadWorkerConfig({ ...minimal, DATAOPS_BLOB_RETENTION_DAYS: '0' }),
      (e: unknown) =>
        e instanceof ConfigError &&
        /DATAOPS_BLOB_RETENTION_DAYS: expected a whole number from 1 to 3650, got '0'/.test(e.message),
    );
  });

  test('a public OAuth client (no secret) is refused at start: its rotating refresh token cannot outlive one process', () => {
    const oauth = {
      DATAOPS_PROJECT_CODE: 'DEMO',
      DATAOPS_OAUTH_TOKEN_URL: 'http://testgen.example/oauth/token',
      DATAOPS_OAUTH_CLIENT_ID: 'dataops-worker',
      DATAOPS_OAUTH_REFRESH_TOKEN: 'refresh-token-value',
    };
    assert.throws(
      () => loadWorkerConfig(oauth),
      (e: unknown) =>
        e instanceof ConfigError &&
        /DATAOPS_OAUTH_CLIENT_SECRET: required: without it the client is public, .* a restart or a second worker would present a spent token\. Register a confidential client \(with a secret\), or use a personal access token \(DATAOPS_API_TOKEN\)/.test(
          e.message,
        ) &&
        !e.message.includes('refresh-token-value'),
    );
    const confidential = loadWorkerConfig({ ...oauth, DATAOPS_OAUTH_CLIENT_SECRET: 'client-secret' });
    assert.equal(confidential.service.profiles.default?.apiBearer?.type, 'oauth');
  });

  test('bad configuration names every wrong key and why, at once', () => {
    const err = (() => {
      try {
        loadWorkerConfig({
          TEMPORAL_ADDRESS: 'not an address',
          TEMPORAL_TLS_CERT: '/nonexistent/cert.pem',
          TEMPORAL_TLS_CLIENT_CERT_PATH: '/nonexistent/cert.pem',
          TEMPORAL_TLS: 'yes',
          DATAOPS_DEPLOYMENT_NAME: 'dataops',
          DATAOPS_SEARCH_ATTRIBUTES: 'sometimes',
          DATAOPS_BASE_URL: 'ftp://service',
          DATAOPS_TIMEOUT_MS: 'soon',
          DATAOPS_PROFILES: 'default,finance,bad name',
          DATAOPS_USERNAME: 'alice',
          DATAOPS_PASSWORD: 'x',
          DATAOPS_PASSWORD_FILE: '/nonexistent/password',
          DATAOPS_JOB_STATUS_PATH: 'jobs/{id}',
          LOG_LEVEL: 'CHATTY',
          METRICS_PROMETHEUS_ADDRESS: '9464',
        });
      } catch (e) {
        return e;
      }
    })();
    assert.ok(err instanceof ConfigError);
    const keys = err.problems.map((p) => p.slice(0, p.indexOf(':')));
    for (const key of [
      'TEMPORAL_ADDRESS',
      'TEMPORAL_TLS_CERT',
      'TEMPORAL_TLS_CLIENT_CERT_PATH',
      'TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH',
      'TEMPORAL_TLS',
      'DATAOPS_DEPLOYMENT_NAME and DATAOPS_BUILD_ID',
      'DATAOPS_SEARCH_ATTRIBUTES',
      'DATAOPS_BASE_URL',
      'DATAOPS_TIMEOUT_MS',
      'DATAOPS_PASSWORD_FILE',
      'DATAOPS_FINANCE_USERNAME',
      'DATAOPS_FINANCE_PASSWORD or DATAOPS_FINANCE_PASSWORD_FILE',
      'DATAOPS_PROFILES',
      'DATAOPS_JOB_STATUS_PATH',
      'LOG_LEVEL',
      'METRICS_PROMETHEUS_ADDRESS',
    ])
      assert.ok(keys.includes(key), `${key} missing in:\n${err.message}`);
    assert.ok(!err.message.includes('s3cret'));
  });

  test('secrets from *_FILE files; several profiles; TLS and a Temporal Cloud API key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    writeFileSync(join(dir, 'pw'), 'from-a-file\n');
    writeFileSync(join(dir, 'key'), 'cloud-api-key\n');
    writeFileSync(join(dir, 'ca.pem'), 'CA');
    const c = loadWorkerConfig({
      ...minimal,
      DATAOPS_PROFILES: 'default,finance-team',
      DATAOPS_FINANCE_TEAM_USERNAME: 'fin',
      DATAOPS_FINANCE_TEAM_PASSWORD_FILE: join(dir, 'pw'),
      DATAOPS_FINANCE_TEAM_PROJECT_CODE: 'FIN',
      TEMPORAL_ADDRESS: 'my-ns.a1b2c.tmprl.cloud:7233',
      TEMPORAL_API_KEY_FILE: join(dir, 'key'),
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: join(dir, 'ca.pem'),
    });
    assert.equal(c.service.profiles['finance-team']?.credentials?.password, 'from-a-file');
    assert.equal(c.service.profiles['finance-team']?.projectCode, 'FIN');
    assert.equal(c.temporal.apiKey, 'cloud-api-key');
    assert.equal(c.temporal.tls && c.temporal.tls.ca?.toString(), 'CA');
    assert.deepEqual(temporalConnectionOptions(c.temporal), {
      address: 'my-ns.a1b2c.tmprl.cloud:7233',
      tls: { serverRootCACertificate: Buffer.from('CA') },
      apiKey: 'cloud-api-key',
    });
    const shown = JSON.stringify(describeConfig(c));
    assert.ok(!shown.includes('from-a-file') && !shown.includes('cloud-api-key') && !shown.includes('s3cret'));
  });

  test('the sole-writer declaration: off by default; allowed on two profiles of one account (their sends take turns at one submitter per deployment and target)', () => {
    assert.equal(loadWorkerConfig(minimal).service.profiles.default?.soleWriter, undefined);
    const declared = loadWorkerConfig({ ...minimal, DATAOPS_SOLE_WRITER: 'true' });
    assert.equal(declared.service.profiles.default?.soleWriter, true);
    assert.equal(
      (describeConfig(declared).service as { profiles: { default: { soleWriter: boolean } } }).profiles.default
        .soleWriter,
      true,
    );
    const twoOfOne = loadWorkerConfig({
      DATAOPS_PROFILES: 'default,nightly',
      DATAOPS_API_TOKEN: 'tok-secret-1',
      DATAOPS_NIGHTLY_API_TOKEN: 'tok-secret-1',
      DATAOPS_NIGHTLY_SOLE_WRITER: 'true',
    });
    assert.equal(twoOfOne.service.profiles.nightly?.soleWriter, true);
    assert.throws(
      () => loadWorkerConfig({ ...minimal, DATAOPS_SOLE_WRITER: 'yes' }),
      /expected true or false, got 'yes'/,
    );
  });
});
