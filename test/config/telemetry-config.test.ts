/** The OpenTelemetry settings under their standard OTEL_* names. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Problems } from '../../src/config/env.js';
import { readTracingConfig } from '../../src/config/telemetry.js';
import { routeTemplate } from '../../src/telemetry/service-calls.js';

const read = (env: Record<string, string>) => {
  const problems = new Problems();
  return { config: readTracingConfig(env, problems, 'svc'), problems: problems.list };
};

describe('tracing settings', () => {
  test('off without an endpoint; the base endpoint gets /v1/traces; the traces endpoint is taken as given', () => {
    assert.deepEqual(read({}), { config: undefined, problems: [] });
    assert.deepEqual(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).config, {
      tracesEndpoint: 'http://collector:4318/v1/traces',
      serviceName: 'svc',
    });
    assert.deepEqual(
      read({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp',
        OTEL_SERVICE_NAME: 'dq-worker',
      }).config,
      { tracesEndpoint: 'https://traces.example/otlp', serviceName: 'dq-worker' },
    );
    assert.equal(
      read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }).config,
      undefined,
    );
  });

  test('a wrong value is named, and a URL with credentials is not echoed', () => {
    const { problems } = read({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://user:s3cret@collector:4318',
      OTEL_TRACES_EXPORTER: 'zipkin',
    });
    assert.equal(problems.length, 2, problems.join('; '));
    assert.match(problems[0] ?? '', /^OTEL_EXPORTER_OTLP_ENDPOINT: must not carry credentials/);
    assert.match(problems[1] ?? '', /^OTEL_TRACES_EXPORTER: expected otlp or none, got 'zipkin'/);
    assert.ok(!problems.join().includes('s3cret'));
  });

  test('span names and metric labels use the path template: no id, no query string', () => {
    assert.equal(routeTemplate('/api/v1/jobs/649ed1f3-f5ef-415a-8ee9-abcdff596a74?include=x'), '/api/v1/jobs/{id}');
    assert.equal(routeTemplate('/v2/orders/1234/runs'), '/v2/orders/{id}/runs');
    assert.equal(routeTemplate('/api/v1/projects/DEMO/jobs'), '/api/v1/projects/DEMO/jobs');
  });
});
