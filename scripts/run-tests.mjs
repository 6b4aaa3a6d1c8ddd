#!/usr/bin/env node
// Runs the compiled test files (dist/test/**/*.test.js) with Node's test runner.
// Usage: npm test [-- <substring> ...]   runs only the files whose path contains one of the substrings.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const testDir = join(root, 'dist', 'test');

function collect(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return collect(path);
    return entry.name.endsWith('.test.js') ? [path] : [];
  });
}

const filters = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const passThrough = process.argv.slice(2).filter((a) => a.startsWith('--'));
const files = collect(testDir)
  .filter((f) => filters.length === 0 || filters.some((s) => relative(root, f).includes(s)))
  .sort();
if (files.length === 0) {
  console.error(
    `no test files under ${relative(root, testDir)} match ${JSON.stringify(filters)}; run "npm run build" first`,
  );
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
// Every temporary directory the tests make, and the servers and tools they start make, goes under one directory per
// run (TMPDIR, which Node, Go and Python all honour). A passing run removes it; a failing one keeps it for a look and
// says where. Without it each run left a few hundred directories in the system's temporary directory.
const runTmp = mkdtempSync(join(tmpdir(), 'dataops-tests-'));
const result = spawnSync(
  process.execPath,
  [
    // A file whose tests have all ended exits even if a wedged worker still holds its connection (a test that timed
    // out leaves one), without Node's --test-force-exit, which loses verdicts: the preload says how.
    `--import=${new URL('./test-preload.mjs', import.meta.url).href}`,
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-timeout=300000',
    // TAP on every Node (22 and 24 print the spec format by default), so logs read the same: `not ok` marks a failure.
    ...(passThrough.some((a) => a.startsWith('--test-reporter')) ? [] : ['--test-reporter=tap']),
    ...passThrough,
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, TMPDIR: runTmp } },
);
if (result.status === 0) rmSync(runTmp, { recursive: true, force: true });
else console.error(`the tests' temporary files are kept in ${runTmp}`);
process.exit(result.status ?? 1);
