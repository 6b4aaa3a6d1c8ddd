#!/usr/bin/env node
// Runs the compiled test files (dist/test/**/*.test.js) with Node's test runner.
// Usage: npm test [-- <substring> ...]   runs only the files whose path contains one of the substrings;
//        a substring after "!" leaves out the files whose path contains it (npm test -- '!peer/').
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
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
const includes = filters.filter((a) => !a.startsWith('!'));
const excludes = filters.filter((a) => a.startsWith('!')).map((a) => a.slice(1));
const passThrough = process.argv.slice(2).filter((a) => a.startsWith('--'));
const files = collect(testDir)
  .filter((f) => includes.length === 0 || includes.some((s) => relative(root, f).includes(s)))
  .filter((f) => !excludes.some((s) => relative(root, f).includes(s)))
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
const ownReporter = passThrough.some((a) => a.startsWith('--test-reporter'));
const summaryFile = join(runTmp, 'summary.jsonl');
const result = spawnSync(
  process.execPath,
  [
    // A file whose tests have all ended exits even if a wedged worker still holds its connection (a test that timed
    // out leaves one), without Node's --test-force-exit, which loses verdicts: the preload says how.
    `--import=${new URL('./test-preload.mjs', import.meta.url).href}`,
    '--test',
    `--test-concurrency=${concurrency}`,
    // A hang guard, not a speed check: the longest file (the fault matrix, about 4 minutes alone) must fit on a
    // loaded machine.
    '--test-timeout=600000',
    // TAP on every Node (22 and 24 print the spec format by default), so logs read the same: `not ok` marks a failure.
    // Beside it, the summary reporter's counts and skips for the run's closing lines.
    ...(ownReporter
      ? []
      : [
          '--test-reporter=tap',
          '--test-reporter-destination=stdout',
          `--test-reporter=${new URL('./test-summary-reporter.mjs', import.meta.url).href}`,
          `--test-reporter-destination=${summaryFile}`,
        ]),
    ...passThrough,
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, TMPDIR: runTmp } },
);
const counts = ownReporter ? undefined : printSummary();
// In CI a skip is not a pass: whatever was skipped did not run (a peer test skips only outside CI; see
// test/helpers/needs.ts), so a run that skipped anything fails there.
const skippedInCi = process.env.CI === 'true' && (counts?.skipped ?? 0) > 0;
if (skippedInCi) console.log(`CI=true: ${counts?.skipped} skipped, and nothing may be skipped in CI; failing the run`);
const status = skippedInCi ? 1 : (result.status ?? 1);
if (status === 0) rmSync(runTmp, { recursive: true, force: true });
else console.error(`the tests' temporary files are kept in ${runTmp}`);
process.exit(status);

/**
 * The run's last lines: each skipped test or suite with its reason, each failed test with the first line of its error,
 * then the counts, as the closing line
 * `tests: N passed, N failed, N skipped`, which it returns. The exit code is the runner's (a file that failed outside
 * any test fails the run even where the counts show no failed test), or 1 for a skip under CI=true.
 */
function printSummary() {
  const lines = existsSync(summaryFile) ? readFileSync(summaryFile, 'utf8').split('\n').filter(Boolean) : [];
  const entries = lines.map((line) => JSON.parse(line));
  for (const { skipped } of entries.filter((e) => e.skipped))
    console.log(
      `skipped: ${relative(root, skipped.file ?? '')} › ${skipped.name}: ${skipped.reason || 'no reason given'}`,
    );
  for (const { failed } of entries.filter((e) => e.failed))
    console.log(`failed: ${relative(root, failed.file ?? '')} › ${failed.name}: ${failed.error || 'no message'}`);
  const counts = entries.find((e) => e.counts)?.counts;
  if (!counts) {
    console.log('tests: no summary (the runner ended before reporting)');
    return undefined;
  }
  const todo = counts.todo > 0 ? `, ${counts.todo} todo` : '';
  console.log(`tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped${todo}`);
  return counts;
}
