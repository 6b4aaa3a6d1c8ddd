/** The worker's lineage and link settings: defaults, each transport, and every mistake named by its variable. */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError } from '../../src/config/env.js';
import { describeConfig, loadWorkerConfig } from '../../src/config/worker.js';

const minimal = { DATAOPS_USERNAME: 'alice', DATAOPS_PASSWORD: 's3cret' };

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadWorkerConfig({ ...minimal, ...env });
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems;
  }
  assert.fail('the configuration was accepted');
};

describe('lineage and link settings', () => {
  test('off by default, no links, and a namespace from the Temporal namespace, whatever address reaches the service', () => {
    const defaults = { transport: { type: 'off' }, connections: {}, serviceLanguage: 'Python' };
    for (const base of ['https://dataops.example.com', 'http://10.0.0.7:8510'])
      assert.deepEqual(loadWorkerConfig({ ...minimal, DATAOPS_BASE_URL: base }).lineage, {
        ...defaults,
        namespace: 'temporal://default',
      });
    const c = loadWorkerConfig({ ...minimal, TEMPORAL_NAMESPACE: 'quality.a1b2c' });
    assert.deepEqual(c.lineage, { ...defaults, namespace: 'temporal://quality.a1b2c' });
    assert.deepEqual(c.jobLinks, {});
    assert.equal(describeConfig(c).lineage, 'off');
  });

  test('per connection: what the service does not show, by connection id, name or *; the service language', () => {
    const c = loadWorkerConfig({
      ...minimal,
      DATAOPS_LINEAGE_CONNECTIONS: JSON.stringify({
        '42': { type: 'Google BigQuery', project: 'acme-dw' },
        warehouse: { host: 'pg.internal', port: 6432 },
        '*': { type: 'PostgreSQL', host: 'db', database: 'dw' },
      }),
      DATAOPS_LINEAGE_SERVICE_LANGUAGE: 'Java',
    });
    assert.deepEqual(c.lineage.connections, {
      '42': { type: 'Google BigQuery', project: 'acme-dw' },
      warehouse: { host: 'pg.internal', port: '6432' },
      '*': { type: 'PostgreSQL', host: 'db', database: 'dw' },
    });
    assert.equal(c.lineage.serviceLanguage, 'Java');
    assert.deepEqual(problemsOf({ DATAOPS_LINEAGE_CONNECTIONS: '[not json' }), [
      'DATAOPS_LINEAGE_CONNECTIONS: must be a JSON object by connection, e.g. {"42": {"type": "Google BigQuery", "project": "my-project"}}',
    ]);
    const wrong = problemsOf({ DATAOPS_LINEAGE_CONNECTIONS: '{"42": {"projekt": "x", "port": 0}}' });
    assert.equal(wrong.length, 2, wrong.join('\n'));
    assert.match(wrong.join('\n'), /DATAOPS_LINEAGE_CONNECTIONS: 42\.port: /);
    assert.match(wrong.join('\n'), /DATAOPS_LINEAGE_CONNECTIONS: 42: Unrecognized key: "projekt"/);
  });

  test('http: the endpoint, its key from a file, bounded retries; the key is never shown', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lineage-key-'));
    writeFileSync(join(dir, 'key'), 'ol-key-789\n');
    const c = loadWorkerConfig({
      ...minimal,
      DATAOPS_LINEAGE: 'http',
      DATAOPS_LINEAGE_URL: 'http://marquez:5000/api/v1/lineage',
      DATAOPS_LINEAGE_API_KEY_FILE: join(dir, 'key'),
      DATAOPS_LINEAGE_NAMESPACE: 'prod-quality',
    });
    assert.deepEqual(c.lineage, {
      transport: {
        type: 'http',
        url: 'http://marquez:5000/api/v1/lineage',
        apiKey: 'ol-key-789',
        timeoutMs: 5_000,
        retries: 5,
      },
      namespace: 'prod-quality',
      connections: {},
      serviceLanguage: 'Python',
    });
    const shown = JSON.stringify(describeConfig(c));
    assert.match(shown, /http http:\/\/marquez:5000\/api\/v1\/lineage \(API key set\), namespace prod-quality/);
    assert.doesNotMatch(shown, /ol-key-789/);
  });

  test('file, and the links to TestGen-like pages (or other pages) of the service UI', () => {
    const c = loadWorkerConfig({
      ...minimal,
      DATAOPS_LINEAGE: 'file',
      DATAOPS_LINEAGE_FILE: '/var/lib/dataops/lineage.jsonl',
      DATAOPS_SERVICE_UI_URL: 'https://testgen.example.com/',
    });
    assert.deepEqual(c.lineage.transport, { type: 'file', path: '/var/lib/dataops/lineage.jsonl' });
    assert.deepEqual(c.jobLinks, {
      profiling: 'https://testgen.example.com/profiling-runs:results?run_id={job_id}',
      test_run: 'https://testgen.example.com/test-runs:results?run_id={job_id}',
    });
    const other = loadWorkerConfig({
      ...minimal,
      DATAOPS_SERVICE_UI_URL: 'https://ui.example.com',
      DATAOPS_SERVICE_UI_TEST_RUN_PAGE: '/runs/{job_id}',
    });
    assert.equal(other.jobLinks.test_run, 'https://ui.example.com/runs/{job_id}');
  });

  test('each mistake is named by its variable, and a key is not echoed', () => {
    assert.deepEqual(problemsOf({ DATAOPS_LINEAGE: 'kafka' }), [
      "DATAOPS_LINEAGE: expected one of off, file, http, got 'kafka'",
    ]);
    assert.deepEqual(problemsOf({ DATAOPS_LINEAGE: 'http' }), [
      'DATAOPS_LINEAGE_URL: required with DATAOPS_LINEAGE=http (the OpenLineage endpoint events go to)',
    ]);
    assert.deepEqual(problemsOf({ DATAOPS_LINEAGE: 'file' }), [
      'DATAOPS_LINEAGE_FILE: required with DATAOPS_LINEAGE=file (the JSON-lines file events go to)',
    ]);
    const unused = problemsOf({ DATAOPS_LINEAGE_API_KEY: 'hidden-key-1' });
    assert.deepEqual(unused, [
      'DATAOPS_LINEAGE_API_KEY: set, but DATAOPS_LINEAGE is off: it takes effect only with DATAOPS_LINEAGE=http',
    ]);
    assert.doesNotMatch(unused.join(), /hidden-key-1/);
    assert.match(problemsOf({ DATAOPS_LINEAGE_RETRIES: '99' }).join(), /^DATAOPS_LINEAGE_RETRIES: /);
    assert.deepEqual(problemsOf({ DATAOPS_SERVICE_UI_URL: 'http://ui', DATAOPS_SERVICE_UI_PROFILING_PAGE: '/runs' }), [
      "DATAOPS_SERVICE_UI_PROFILING_PAGE: must contain {job_id}, where the job's id goes",
    ]);
    assert.match(
      problemsOf({ DATAOPS_SERVICE_UI_URL: 'ftp://ui' }).join(),
      /^DATAOPS_SERVICE_UI_URL: expected an http/,
    );
  });
});
