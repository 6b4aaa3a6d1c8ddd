/**
 * Runs the README's test command (scripts/run-tests.mjs) as a user would, for the tests of the test command itself:
 * on chosen compiled test files, or on probe files a test writes, each run in a temporary directory of its own.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const root = new URL('../../..', import.meta.url).pathname;

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** What the run left in the temporary directory it was given (removed once read). */
  left: string[];
  parent: string;
}

/**
 * The environment of a nested run: without NODE_TEST_CONTEXT, which this file's own runner sets (with it, the nested
 * runner would not run as a user's), and with `extra` on top (an `undefined` removes a variable).
 */
export function nestedEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const merged: NodeJS.ProcessEnv = { ...env, ...extra };
  for (const [key, value] of Object.entries(extra)) if (value === undefined) delete merged[key];
  return merged;
}

/** Runs the test command on the files matching `filter`, in a temporary directory of its own, and reads what it left. */
export function runTests(
  args: string[],
  filter = 'config/worker-config',
  extraEnv: Record<string, string | undefined> = {},
): Run {
  const parent = mkdtempSync(join(tmpdir(), 'runner-'));
  try {
    const run = spawnSync(process.execPath, ['scripts/run-tests.mjs', filter, ...args], {
      cwd: root,
      env: nestedEnv({ ...extraEnv, TMPDIR: parent }),
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
export function runProbe(name: string, files: Record<string, string>, extraEnv: Record<string, string> = {}): Run {
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
