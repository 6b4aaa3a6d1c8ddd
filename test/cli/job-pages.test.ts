/** Each job's page in the service's UI, as the CLI shows it: in a result's table, and in `status` (progress or memo). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatTestRun, jobPages } from '../../src/cli/format.js';
import type { RunTestSuiteResult } from '../../src/contract/index.js';

const result = (url?: string) =>
  ({
    job: {
      jobId: 'j-1',
      reconciled: false,
      ...(url ? { url } : {}),
      wait: { job: { status: 'completed' }, durationMs: 60_000, polls: 1, claims: 1, interrupts: 0 },
    },
    summary: { scorePercent: 97.5, resultCounts: { passed: 3, failed: 0, warning: 0, error: 0, log: 0, dismissed: 0 } },
  }) as unknown as RunTestSuiteResult;

test("a result's table shows the job's page when the worker knows the UI, and no row when it does not", () => {
  const url = 'http://ui:8501/test-runs:results?run_id=j-1';
  assert.match(formatTestRun(result(url)), new RegExp(`^page +${url.replace(/[?]/g, '\\?')}$`, 'm'));
  assert.doesNotMatch(formatTestRun(result()), /^page/m);
});

test('status lists the pages from the progress, or from the memo when no worker answers', () => {
  const url = 'http://ui/p';
  assert.equal(jobPages([{ jobId: 'a', url }, { jobId: 'b' }], undefined), `a ${url}`);
  assert.equal(jobPages(undefined, { jobLinks: { a: url } }), `a ${url}`);
  assert.equal(jobPages(undefined, undefined), null);
  assert.equal(jobPages([], { jobLinks: { a: url } }), null, 'a worker that answered is the truth');
});
