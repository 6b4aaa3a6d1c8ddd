import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { localServersConfig } from '../../src/config/local-servers.js';
import { packageRoot, pinnedVersions } from '../../src/local/package-root.js';
import { resolveDevServer, resolveTestServer } from '../../src/local/temporal-servers.js';
import { installedUnderCi } from '../helpers/temporal.js';

function fakeExecutable(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, 0o755);
  return path;
}

describe('Temporal server resolution', () => {
  test('every @temporalio package is a peer with a range, developed against one exact version', () => {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
    };
    assert.deepEqual(
      Object.keys(pkg.dependencies).filter((name) => name.startsWith('@temporalio/')),
      [],
      'no SDK package is a hard dependency: a team installing us keeps its own copy',
    );
    const temporal = Object.entries(pkg.devDependencies).filter(([name]) => name.startsWith('@temporalio/'));
    for (const [name, version] of temporal) assert.equal(pkg.peerDependencies[name], `^${version}`, name);
    assert.ok(temporal.length >= 5, 'expected client, worker, workflow, activity and testing');
    const versions = new Set(temporal.map(([, v]) => v));
    assert.equal(versions.size, 1, `SDK versions differ: ${JSON.stringify(Object.fromEntries(temporal))}`);
    assert.match([...versions][0] ?? '', /^1\.\d+\.\d+$/);
    assert.equal(pinnedVersions().sdk, [...versions][0]);
  });

  test('under CI=true a server left to the SDK download fails at once, naming the install command', () => {
    const empty = { cacheDir: mkdtempSync(join(tmpdir(), 'no-servers-')) };
    const ci = process.env.CI;
    try {
      process.env.CI = 'true';
      assert.throws(
        () => installedUnderCi(resolveDevServer(empty), 'the Temporal CLI dev server'),
        /^Error: CI=true, and the Temporal CLI dev server is not installed \(the SDK would download it\): run npm run install-temporal/,
      );
      delete process.env.CI;
      assert.equal(installedUnderCi(resolveTestServer(empty), 'the test server').source, 'sdk-download');
    } finally {
      if (ci === undefined) delete process.env.CI;
      else process.env.CI = ci;
    }
  });

  test('falls back to the SDK download when nothing is installed or configured', () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'dot-cache-'));
    const config = localServersConfig({ DATAOPS_TEMPORAL_CACHE_DIR: cacheDir });
    for (const resolved of [resolveDevServer(config), resolveTestServer(config)]) {
      assert.equal(resolved.source, 'sdk-download');
      assert.deepEqual(resolved.executable, { type: 'cached-download', downloadDir: join(cacheDir, 'sdk-download') });
    }
  });

  test('uses the installed servers in the cache, at the pinned versions', () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'dot-cache-'));
    const { cli, testServer } = pinnedVersions();
    const cliPath = fakeExecutable(join(cacheDir, `temporal-cli-${cli}`, 'temporal'));
    const tsPath = fakeExecutable(join(cacheDir, `temporal-test-server-${testServer}`, 'temporal-test-server'));
    const config = localServersConfig({ DATAOPS_TEMPORAL_CACHE_DIR: cacheDir });
    assert.deepEqual(resolveDevServer(config), {
      source: 'installed',
      path: cliPath,
      executable: { type: 'existing-path', path: cliPath },
    });
    assert.deepEqual(resolveTestServer(config).executable, { type: 'existing-path', path: tsPath });
  });

  test('environment overrides win over the cache, and a non-executable override is a clear error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dot-own-'));
    const own = fakeExecutable(join(dir, 'my-temporal'));
    const config = localServersConfig({ DATAOPS_TEMPORAL_CACHE_DIR: dir, TEMPORAL_CLI_PATH: own });
    assert.equal(resolveDevServer(config).source, 'env');
    const missing = localServersConfig({ TEMPORAL_TEST_SERVER_PATH: join(dir, 'nope') });
    assert.throws(() => resolveTestServer(missing), /not executable: .*nope/);
  });

  test('the default cache directory follows XDG_CACHE_HOME', () => {
    assert.equal(localServersConfig({ XDG_CACHE_HOME: '/x/cache' }).cacheDir, '/x/cache/dataops-temporal');
  });
});
