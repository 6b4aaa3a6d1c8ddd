/**
 * The README's test command (scripts/run-tests.mjs) gives each run one temporary directory (TMPDIR) and removes it
 * when the run passes, so running the suite often does not fill the system's temporary directory; a failing run
 * keeps it and says where. It reports every test that ran (Node's --test-force-exit dropped the last verdicts of a
 * file whose report was still on its way), and a file that stays up after its tests, which that flag used to end,
 * now fails, saying so (scripts/test-preload.mjs).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const root = new URL('../../..', import.meta.url).pathname;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** What the run left in the temporary directory it was given (removed once read). */
  left: string[];
  parent: string;
}

/** Runs the test command on the files matching `filter`, in a temporary directory of its own, and reads what it left. */
function runTests(args: string[], filter = 'config/worker-config', extraEnv: Record<string, string> = {}): Run {
  const parent = mkdtempSync(join(tmpdir(), 'runner-'));
  try {
    // Without NODE_TEST_CONTEXT, which this file's own runner sets: with it, the nested runner would not run as a user's.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const run = spawnSync(process.execPath, ['scripts/run-tests.mjs', filter, ...args], {
      cwd: root,
      env: { ...env, ...extraEnv, TMPDIR: parent },
      encoding: 'utf8',
    });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr, left: readdirSync(parent), parent };
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}

/**
 * Runs the test command on test files of the test's own, written to a directory of dist/test (the command runs what
 * is there; the run that runs this file listed its files before), removed after.
 */
function runProbe(name: string, files: Record<string, string>, extraEnv: Record<string, string> = {}): Run {
  const probe = `runner-probe-${name}-${process.pid}`;
  const dir = join(root, 'dist', 'test', probe);
  mkdirSync(dir, { recursive: true });
  try {
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
    return runTests([], `${probe}/`, extraEnv);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

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
