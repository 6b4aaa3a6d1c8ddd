/**
 * The README's test command (scripts/run-tests.mjs) gives each run one temporary directory (TMPDIR) and removes it
 * when the run passes, so running the suite often does not fill the system's temporary directory; a failing run
 * keeps it and says where.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const root = new URL('../../..', import.meta.url).pathname;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** What the run left in the temporary directory it was given. */
  left: string[];
  parent: string;
}

function runTests(args: string[]): Run {
  const parent = mkdtempSync(join(tmpdir(), 'runner-'));
  // Without NODE_TEST_CONTEXT, which this file's own runner sets: with it, the nested runner would not run as a user's.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = spawnSync(process.execPath, ['scripts/run-tests.mjs', 'config/worker-config', ...args], {
    cwd: root,
    env: { ...env, TMPDIR: parent },
    encoding: 'utf8',
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, left: readdirSync(parent), parent };
}

test('a passing run removes the temporary directories its tests made', () => {
  const run = runTests([]);
  try {
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^# pass [1-9]/m);
    assert.deepEqual(run.left, []); // the file's own test makes one (cfg-…): without the run's TMPDIR it stays
  } finally {
    rmSync(run.parent, { recursive: true, force: true });
  }
});

test('a failing run keeps them, and says where', () => {
  const run = runTests(['--no-such-node-option']); // node refuses it: the run fails before any test
  try {
    assert.notEqual(run.status, 0);
    assert.equal(run.left.length, 1);
    assert.match(run.left[0]!, /^dataops-tests-/);
    assert.ok(run.stderr.includes(join(run.parent, run.left[0]!)), run.stderr);
  } finally {
    rmSync(run.parent, { recursive: true, force: true });
  }
});
