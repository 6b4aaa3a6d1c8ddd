/**
 * CI cannot pass without the real peers. Under CI=true an installer that cannot install its peer (no Python, a
 * DATAOPS_SKIP_* set) exits non-zero and says why, and a test file whose peer is missing fails, naming it and the
 * command that installs it. Outside CI both are skips that say why, and the skip is counted in the run's last line.
 * An installer that skipped writes no stamp, so the next test run tries it again (scripts/prepare-tests.mjs).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { nestedEnv, root, runTests } from '../helpers/test-command.js';

const scratch = mkdtempSync(join(tmpdir(), 'peer-requirements-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** An empty cache directory: nothing is installed there. */
const emptyCache = () => mkdtempSync(join(scratch, 'cache-'));

/** Runs an installer with an empty cache, no Python it can use, and `env` (CI set or removed by the caller). */
function install(name: string, env: Record<string, string | undefined>) {
  const stamp = join(scratch, `stamp-${name}-${Math.random().toString(36).slice(2)}`);
  const run = spawnSync('bash', [join(root, 'scripts', `install-${name}.sh`)], {
    cwd: root,
    encoding: 'utf8',
    env: nestedEnv({
      DATAOPS_TEMPORAL_CACHE_DIR: emptyCache(),
      DATAOPS_PYTHON: '/nonexistent/python3',
      DATAOPS_TESTGEN_PYTHON: '/nonexistent/python3',
      DATAOPS_INSTALL_STAMP: stamp,
      DATAOPS_INSTALL_KEY: 'the-key',
      ...env,
    }),
  });
  return { status: run.status, stderr: run.stderr, stamp: existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '' };
}

const PYTHON_PEERS = [
  ['testgen', /TestGen needs Python >= 3\.11 \(\/nonexistent\/python3 is missing\)/],
  ['object-store', /moto needs Python >= 3\.11 \(\/nonexistent\/python3 is missing\)/],
  ['python-example', /the Python example needs Python >= 3\.11 \(\/nonexistent\/python3 is missing\)/],
] as const;

describe('the installers', () => {
  for (const [name, why] of PYTHON_PEERS) {
    test(`install-${name}: under CI=true a missing Python fails the install and says why`, () => {
      const run = install(name, { CI: 'true' });
      assert.equal(run.status, 1, run.stderr);
      assert.match(run.stderr, /FAILED: /);
      assert.match(run.stderr, why);
      assert.match(run.stderr, /CI=true: a peer the tests need cannot be missing/);
      assert.equal(run.stamp, '', 'no stamp for a failed install');
    });

    test(`install-${name}: outside CI it is a skip that says why, and writes no stamp`, () => {
      const run = install(name, { CI: undefined });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stderr, why);
      assert.match(run.stderr, /the tests that need it will be skipped/);
      assert.equal(run.stamp, '', 'the next test run tries again');
    });
  }

  test('DATAOPS_SKIP_PEER=1 and DATAOPS_SKIP_OBJECT_STORE=1 are refused under CI=true', () => {
    const peer = install('testgen', { CI: 'true', DATAOPS_SKIP_PEER: '1' });
    assert.equal(peer.status, 1, peer.stderr);
    assert.match(peer.stderr, /FAILED: DATAOPS_SKIP_PEER=1: TestGen not installed/);
    const store = install('object-store', { CI: 'true', DATAOPS_SKIP_OBJECT_STORE: '1' });
    assert.equal(store.status, 1, store.stderr);
    assert.match(store.stderr, /FAILED: DATAOPS_SKIP_OBJECT_STORE=1/);
  });

  test('an installer whose peer is there writes its stamp, so the next test run skips it', () => {
    const run = install('testgen', { CI: 'true', DATAOPS_TESTGEN_URL: 'http://127.0.0.1:9' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stamp, 'the-key');
  });
});

describe('a test file whose peer is missing', () => {
  // The peer test files, with an empty cache: no TestGen, no moto, no Python example.
  const missing = (ci: string | undefined) =>
    runTests([], 'peer/client.test', {
      CI: ci,
      DATAOPS_TEMPORAL_CACHE_DIR: emptyCache(),
      DATAOPS_TESTGEN_URL: undefined,
      DATAOPS_SKIP_PEER: undefined,
    });

  test('fails under CI=true, naming what is missing and the command that installs it', () => {
    const run = missing('true');
    assert.notEqual(run.status, 0, 'the run fails');
    assert.match(run.stdout, /^\s*not ok 1 - needs TestGen 5\.134\.0/m);
    assert.match(run.stdout, /CI=true, so this cannot be skipped: TestGen 5\.134\.0 .* is missing: not installed in /);
    assert.match(run.stdout, /install it: npm run install-testgen/);
    assert.equal(run.stdout.trimEnd().split('\n').at(-1), 'tests: 0 passed, 1 failed, 0 skipped');
  });

  test('is skipped outside CI, saying why, and the last line counts the skip', () => {
    const run = missing(undefined);
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trimEnd().split('\n');
    assert.equal(lines.at(-1), 'tests: 0 passed, 0 failed, 1 skipped');
    assert.match(
      lines.at(-2) ?? '',
      /^skipped: dist\/test\/peer\/client\.test\.js › the client against TestGen 5\.134 \(peer\): TestGen 5\.134\.0 .* is missing: not installed in .*\(install it: npm run install-testgen/,
    );
  });
});
