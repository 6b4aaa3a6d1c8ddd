/**
 * The Temporal connection read as the SDKs and the CLI read it (@temporalio/envconfig): temporal.toml profiles, the
 * standard variables over them, and the names this project read before refused with their replacement.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, Problems, readFromDisk, type Env } from '../../src/config/env.js';
import { readTemporalConfig, temporalConnectionOptions } from '../../src/config/temporal.js';

const dir = mkdtempSync(join(tmpdir(), 'temporal-cfg-'));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const toml = file(
  'temporal.toml',
  `[profile.default]
address = "localhost:7233"

[profile.prod]
address = "prod.example:7233"
namespace = "data-prod"
api_key = "toml-api-key"

[profile.prod.tls]
server_name = "prod.internal"
server_ca_cert_path = "${file('ca.pem', 'CA')}"

[profile.prod.grpc_meta]
x-team = "data"

[profile.mtls]
address = "mtls.example:7233"

[profile.mtls.tls]
client_cert_path = "${file('client.pem', 'CERT')}"
client_key_path = "${file('client.key', 'KEY')}"
`,
);

function read(env: Env) {
  const problems = new Problems();
  const config = readTemporalConfig(env, readFromDisk, problems);
  return { config, problems: problems.list };
}

describe('Temporal connection settings (envconfig)', () => {
  test('nothing set: the local server, default namespace and queue, no TLS', () => {
    const { config, problems } = read({});
    assert.deepEqual(problems, []);
    assert.deepEqual(config, { address: 'localhost:7233', namespace: 'default', taskQueue: 'dataops-temporal' });
  });

  test('a profile of temporal.toml: address, namespace, API key, TLS and gRPC headers', () => {
    const { config, problems } = read({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'prod' });
    assert.deepEqual(problems, []);
    assert.deepEqual(temporalConnectionOptions(config), {
      address: 'prod.example:7233',
      tls: { serverNameOverride: 'prod.internal', serverRootCACertificate: Buffer.from('CA') },
      apiKey: 'toml-api-key',
      metadata: { 'x-team': 'data' },
    });
    assert.equal(config.namespace, 'data-prod');
  });

  test('the standard variables override the profile; an mTLS pair from the profile is read', () => {
    const { config, problems } = read({
      TEMPORAL_CONFIG_FILE: toml,
      TEMPORAL_PROFILE: 'mtls',
      TEMPORAL_NAMESPACE: 'from-env',
      TEMPORAL_TLS_SERVER_NAME: 'override.internal',
      TEMPORAL_GRPC_META_X_TRACE: 'on',
    });
    assert.deepEqual(problems, []);
    assert.equal(config.namespace, 'from-env');
    assert.deepEqual(temporalConnectionOptions(config), {
      address: 'mtls.example:7233',
      tls: {
        serverNameOverride: 'override.internal',
        clientCertPair: { crt: Buffer.from('CERT'), key: Buffer.from('KEY') },
      },
      metadata: { 'x-trace': 'on' },
    });
  });

  test('the standard TLS variables alone, without a file', () => {
    const { config, problems } = read({
      TEMPORAL_ADDRESS: 'ns.a1b2c.tmprl.cloud:7233',
      TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'client.pem'),
      TEMPORAL_TLS_CLIENT_KEY_PATH: join(dir, 'client.key'),
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(temporalConnectionOptions(config).tls, {
      clientCertPair: { crt: Buffer.from('CERT'), key: Buffer.from('KEY') },
    });
  });

  test('TEMPORAL_TLS=false turns TLS off explicitly, even with an API key', () => {
    const { config } = read({ TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' });
    assert.equal(temporalConnectionOptions(config).tls, false);
    assert.equal(read({ TEMPORAL_API_KEY: 'k' }).config.tls && 'on', 'on', 'an API key implies TLS');
  });

  test('the old variable names are refused, naming the standard ones', () => {
    const { problems } = read({
      TEMPORAL_TLS_CERT: '/etc/cert.pem',
      TEMPORAL_TLS_KEY: '/etc/key.pem',
      TEMPORAL_TLS_CA: '/etc/ca.pem',
    });
    assert.deepEqual(problems, [
      'TEMPORAL_TLS_CERT: no longer read; set TEMPORAL_TLS_CLIENT_CERT_PATH instead (the standard name the Temporal SDKs and CLI read)',
      'TEMPORAL_TLS_KEY: no longer read; set TEMPORAL_TLS_CLIENT_KEY_PATH instead (the standard name the Temporal SDKs and CLI read)',
      'TEMPORAL_TLS_CA: no longer read; set TEMPORAL_TLS_SERVER_CA_CERT_PATH instead (the standard name the Temporal SDKs and CLI read)',
    ]);
  });

  test('every wrong setting is named, with where it came from, and no secret is echoed', () => {
    const cases: [Env, RegExp][] = [
      [{ TEMPORAL_CONFIG_FILE: join(dir, 'missing.toml') }, /^TEMPORAL_CONFIG_FILE: cannot read .*missing\.toml/],
      [{ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'staging' }, /profile staging: Profile 'staging' not found/],
      [{ TEMPORAL_CONFIG_FILE: file('bad.toml', 'address = = "x"\n') }, /^.*bad\.toml: .*/],
      [{ TEMPORAL_ADDRESS: 'nowhere' }, /^TEMPORAL_ADDRESS: expected host:port, got 'nowhere'$/],
      [{ TEMPORAL_TLS: 'yes' }, /^TEMPORAL_TLS: expected true or false, got 'yes'$/],
      [{ TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'client.pem') }, /^TEMPORAL_TLS_CLIENT_CERT_PATH and .*: set both/],
      [
        { TEMPORAL_TLS_SERVER_CA_CERT_PATH: join(dir, 'nope.pem') },
        /^TEMPORAL_TLS_SERVER_CA_CERT_PATH: cannot read .*nope\.pem/,
      ],
      [
        { TEMPORAL_CONFIG_FILE: file('far.toml', '[profile.default]\naddress = "far"\napi_key = "s3cret"\n') },
        /^address of the profile: expected host:port, got 'far'$/,
      ],
    ];
    for (const [env, expected] of cases) {
      const { problems } = read(env);
      assert.ok(
        problems.some((p) => expected.test(p)),
        `${JSON.stringify(env)}: ${problems.join('; ')}`,
      );
      assert.ok(!problems.join().includes('s3cret'));
    }
    assert.throws(() => {
      const problems = new Problems();
      readTemporalConfig({ TEMPORAL_TLS_CERT: 'x' }, readFromDisk, problems);
      problems.check();
    }, ConfigError);
  });
});
