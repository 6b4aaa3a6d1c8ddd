import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DataQualityPipelineInput, type TestRunSummary } from '../../src/contract/index.js';
import { evaluateGates } from '../../src/workflows/gates.js';
import { scorePercent } from '../../src/vocabulary.js';

const summary = (score: number | null): TestRunSummary => ({
  jobId: 'j',
  status: 'completed',
  testSuiteId: 's',
  tableGroupId: 't',
  startedAt: null,
  completedAt: null,
  scorePercent: score,
  resultCounts: { passed: 9, failed: 0, warning: 1, error: 0, log: 0, dismissed: 0 },
});

describe('quality gates judge one score unit: percent', () => {
  test("a deployment's fraction and a percentage deployment's score give the same percent", () => {
    assert.equal(scorePercent(0.987, 'fraction'), 98.7);
    assert.equal(scorePercent(98.7, 'percent'), 98.7);
    assert.equal(scorePercent(1, 'fraction'), 100);
    assert.equal(scorePercent(null, 'fraction'), null);
    // TestGen 5.134's 0.780 must not pass a 90 % gate, as it would if read as 0.78 on a 0-100 scale... or fail
    // a 0.5 gate read as a fraction: the unit is converted once, at the boundary.
    assert.equal(
      evaluateGates(summary(scorePercent(0.78, 'fraction')), { minScorePercent: 90, warningsAsFailures: false }).passed,
      false,
    );
    assert.equal(
      evaluateGates(summary(scorePercent(0.987, 'fraction')), { minScorePercent: 90, warningsAsFailures: false })
        .passed,
      true,
    );
  });

  test('a missing score (not yet rolled up) fails a score gate as "not available", never passes it', () => {
    const verdict = evaluateGates(summary(null), { minScorePercent: 0, warningsAsFailures: false });
    assert.equal(verdict.passed, false);
    assert.deepEqual(verdict.violations, ['no score is available, and the minimum is 0%']);
    assert.equal(verdict.evaluated.scorePercent, null);
    assert.equal(evaluateGates(summary(null), { warningsAsFailures: false }).passed, true, 'without a score gate');
  });

  test('the old gates.minScore is refused with its new name and unit, not read in the wrong unit', () => {
    const parsed = DataQualityPipelineInput.safeParse({
      tableGroupId: 't',
      testSuiteId: 's',
      gates: { minScore: 0.9 },
    });
    assert.equal(parsed.success, false);
    const issue = parsed.error?.issues.find((i) => i.path.join('.') === 'gates.minScore');
    assert.match(issue?.message ?? '', /renamed minScorePercent: give the lowest score in percent \(0 to 100\)/);
  });

  test('a run without results fails the failure and error limits, never reads as zero failures', () => {
    const none = { ...summary(95), resultCounts: null };
    const verdict = evaluateGates(none, { maxFailed: 0, maxErrors: 0, warningsAsFailures: false });
    assert.equal(verdict.passed, false);
    assert.deepEqual(verdict.violations, [
      'no test results are available, so the failure and error limits cannot be checked',
    ]);
    assert.equal(evaluateGates(none, { minScorePercent: 90, warningsAsFailures: false }).passed, true, 'score only');
  });

  test('a test run that produced no results fails a score gate, whatever score the deployment gives it', () => {
    // TestGen 5.134 scores an empty suite 1.0 (100 %): a verdict from nothing must not pass.
    const empty = {
      ...summary(100),
      resultCounts: { passed: 0, failed: 0, warning: 0, error: 0, log: 0, dismissed: 0 },
    };
    const verdict = evaluateGates(empty, { minScorePercent: 90, warningsAsFailures: false });
    assert.equal(verdict.passed, false);
    assert.deepEqual(verdict.violations, [
      'the test run produced no results, so its score 100% cannot meet the minimum 90%',
    ]);
    assert.equal(evaluateGates(empty, { warningsAsFailures: false }).passed, true, 'without a score gate');
    const one = { ...empty, resultCounts: { ...empty.resultCounts, passed: 1 } };
    assert.equal(evaluateGates(one, { minScorePercent: 90, warningsAsFailures: false }).passed, true, 'one result');
  });

  test('the verdict names the limits it was judged against, each null where none was set', () => {
    const judged = evaluateGates(summary(95), { minScorePercent: 90, maxFailed: 2, warningsAsFailures: true });
    assert.deepEqual(judged.limits, { minScorePercent: 90, maxFailed: 2, maxErrors: null, warningsAsFailures: true });
    // No limit: every run passes, and the result says why instead of reading as a clean run.
    const unjudged = evaluateGates(summary(null), { warningsAsFailures: false });
    assert.equal(unjudged.passed, true);
    assert.deepEqual(unjudged.limits, {
      minScorePercent: null,
      maxFailed: null,
      maxErrors: null,
      warningsAsFailures: false,
    });
    // A limit of 0 is a limit, not "none".
    assert.equal(evaluateGates(summary(95), { maxErrors: 0, warningsAsFailures: false }).limits?.maxErrors, 0);
  });
});
