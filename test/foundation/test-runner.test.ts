/**
 * The README's test command (scripts/run-tests.mjs) gives each run one temporary directory (TMPDIR) and removes it
 * when the run passes, so running the suite often does not fill the system's temporary directory; a failing run
 * keeps it and says where. It reports every test that ran (Node's --test-force-exit dropped the last verdicts of a
 * file whose report was still on its way), and a file that stays up after its tests, which that flag used to end,
 * now fails, saying so (scripts/test-preload.mjs).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { runProbe, runTests } from '../helpers/test-command.js';

test('a passing run removes the temporary directories its tests made', () => {
  const run = runTests([]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^# pass [1-9]/m);
  assert.deepEqual(run.left, []); // the file's own test makes one (cfg-…): without the run's TMPDIR it stays
});

test('a failing run keeps them, and says where', () => {
  const run = runTests(['--no-such-node-option']); // node refuses it: the run fails before any test
  assert.notEqual(run.status, 0);
  assert.equal(run.left.length, 1);
  assert.match(run.left[0]!, /^dataops-tests-/);
  assert.ok(run.stderr.includes(join(run.parent, run.left[0]!)), run.stderr);
});

test('every verdict of a file reaches the report, up to its last test', () => {
  // With --test-force-exit, two files of 300 quick tests reported 454 to 600 of 600 here, and the runner's own report
  // was sometimes cut before its totals.
  const perFile = 2_000;
  const body = Array.from({ length: perFile }, (_, i) => `test('t${i}', () => {});`).join('\n');
  const file = `import { test } from 'node:test';\n${body}\n`;
  for (let round = 0; round < 2; round++) {
    const run = runProbe('verdicts', { 'a.test.js': file, 'b.test.js': file });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^# tests ${2 * perFile}$`, 'm'), `round ${round}: every test reported`);
    assert.match(run.stdout, new RegExp(`^# pass ${2 * perFile}$`, 'm'));
  }
});

test('a file that is still up after its last test and teardown fails, its tests reported', () => {
  const leak =
    "import { test } from 'node:test';\ntest('passes, and leaves a timer running', () => { setInterval(() => {}, 1000); });\n";
  const run = runProbe('leak', { 'leak.test.js': leak }, { TEST_LINGER_MS: '500' });
  assert.notEqual(run.status, 0, 'the run fails');
  assert.match(run.stdout, /^ok 1 - passes, and leaves a timer running$/m, "the test's own verdict is reported");
  assert.match(
    run.stdout + run.stderr,
    /leak\.test\.js: still running 0\.5 s after its last test; exiting, failed: something it started/,
  );
});

test('the last line counts passes, failures and skips, and each skip and failure says why', () => {
  const probe = [
    "import { before, describe, test } from 'node:test';",
    "describe('a peer suite', { skip: 'the peer is missing (install it: npm run install-peer)' }, () => {",
    "  test('never runs', () => {});",
    '});',
    "test('passes', () => {});",
    "test('a skipped test', { skip: 'not on this platform' }, () => {});",
    "test('a failing test', () => { throw new Error('expected 2, got 3\\nsecond line'); });",
    "describe('a suite whose set-up fails', () => {",
    "  before(() => { throw new Error('set-up failed'); });",
    "  test('one', () => {});",
    "  test('two', () => {});",
    '});',
  ].join('\n');
  const run = runProbe('summary', { 'summary.test.js': probe }, { CI: '' }); // the counts, not CI's verdict on skips
  assert.notEqual(run.status, 0, 'the failing set-up fails the run');
  const lines = run.stdout.trimEnd().split('\n');
  assert.equal(lines.at(-1), 'tests: 1 passed, 3 failed, 2 skipped', run.stdout);
  const skips = lines.filter((l) => l.startsWith('skipped: '));
  assert.equal(skips.length, 2, skips.join('\n'));
  assert.match(
    skips[0]!,
    /summary\.test\.js › a peer suite: the peer is missing \(install it: npm run install-peer\)$/,
  );
  assert.match(skips[1]!, /summary\.test\.js › a skipped test: not on this platform$/);
  const failures = lines.filter((l) => l.startsWith('failed: '));
  // The failing test, the suite whose set-up failed (its error says why) and its two tests, which never ran.
  assert.equal(failures.length, 4, failures.join('\n'));
  assert.ok(
    failures.some((l) => /summary\.test\.js › a failing test: expected 2, got 3$/.test(l)),
    failures.join('\n'),
  );
  assert.ok(
    failures.some((l) => /summary\.test\.js › a suite whose set-up fails: set-up failed$/.test(l)),
    failures.join('\n'),
  );
});

test("the test command's build removes a compiled file whose source is gone, and keeps the others", async () => {
  const { pruneStale } = (await import(new URL('../../../scripts/prepare-tests.mjs', import.meta.url).href)) as {
    pruneStale: (sourceRoot: string, outDir: string, dirs?: string[]) => number;
  };
  const tree = mkdtempSync(join(tmpdir(), 'prune-'));
  try {
    const write = (path: string) => {
      mkdirSync(dirname(join(tree, path)), { recursive: true });
      writeFileSync(join(tree, path), '');
    };
    write('test/kept.test.ts');
    for (const ext of ['js', 'js.map', 'd.ts']) {
      write(`dist/test/kept.test.${ext}`);
      write(`dist/test/gone.test.${ext}`);
    }
    write('dist/test/fixtures/data.json'); // not an output of a .ts file: left alone
    assert.equal(pruneStale(tree, join(tree, 'dist'), ['test']), 3);
    assert.deepEqual(readdirSync(join(tree, 'dist', 'test')).sort(), [
      'fixtures',
      'kept.test.d.ts',
      'kept.test.js',
      'kept.test.js.map',
    ]);
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
});

test('a filter after "!" leaves out the files whose path contains it', () => {
  const all = runTests([], 'config/');
  const without = runTests(['!worker-config'], 'config/');
  assert.equal(all.status, 0, all.stderr);
  assert.equal(without.status, 0, without.stderr);
  assert.match(all.stdout, /^ok \d+ - worker configuration$/m);
  assert.doesNotMatch(without.stdout, /worker configuration/);
  const passed = (run: { stdout: string }) => Number(/^tests: (\d+) passed/m.exec(run.stdout)?.[1]);
  assert.ok(passed(without) > 0 && passed(without) < passed(all), `${passed(without)} of ${passed(all)}`);
});

test('under CI=true a run that skipped anything fails, and says so; outside CI it passes', () => {
  const probe =
    "import { test } from 'node:test';\ntest('passes', () => {});\ntest('skipped', { skip: 'why' }, () => {});\n";
  const ci = runProbe('ci-skip', { 'skip.test.js': probe }, { CI: 'true' });
  assert.equal(ci.status, 1, ci.stdout);
  assert.match(ci.stdout, /^tests: 1 passed, 0 failed, 1 skipped$/m);
  assert.match(ci.stdout, /^CI=true: 1 skipped, and nothing may be skipped in CI; failing the run$/m);
  const local = runProbe('local-skip', { 'skip.test.js': probe }, { CI: '' });
  assert.equal(local.status, 0, local.stdout);
});
