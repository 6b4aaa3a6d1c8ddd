/** The CLI's gates row says what a passing verdict passed: its own limits, or its input's for a verdict before 0.3. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GateVerdict } from '../../src/contract/index.js';
import { gatesRow } from '../../src/cli/format.js';

const evaluated = { scorePercent: 33.3, failed: 1, errors: 1, warnings: 0 };
const passed = (limits?: GateVerdict['limits']): GateVerdict => ({ passed: true, violations: [], evaluated, limits });
const NONE = { minScorePercent: null, maxFailed: null, maxErrors: null, warningsAsFailures: false };

test('a verdict with no limit set says that every run passes, not that the gates passed', () => {
  assert.equal(
    gatesRow(passed(NONE)),
    'none set, so every run passes (--min-score-percent, --max-failed, --max-errors)',
  );
});

test('a passing verdict names the limits it held, from the verdict itself (a 0 is a limit)', () => {
  const limits = { minScorePercent: 1, maxFailed: 100, maxErrors: 0, warningsAsFailures: true };
  assert.equal(gatesRow(passed(limits)), 'passed: score ≥ 1 %, failed + warnings ≤ 100, errors ≤ 0');
  // The verdict wins over an input given beside it: it is what was judged.
  assert.equal(gatesRow(passed({ ...NONE, maxErrors: 3 }), { maxErrors: 9 }), 'passed: errors ≤ 3');
});

test('a verdict from before contract 0.3 (no limits) reads them from the input, or says only that none was violated', () => {
  assert.equal(gatesRow(passed(), { minScorePercent: 80 }), 'passed: score ≥ 80 %');
  assert.match(gatesRow(passed(), {}), /^none set, so every run passes/);
  assert.equal(gatesRow(passed()), 'all passed');
});

test('a failing verdict lists its violations', () => {
  const failed = { ...passed(NONE), passed: false, violations: ['score 33.3% is below the minimum 90%', 'x'] };
  assert.equal(gatesRow(failed), 'score 33.3% is below the minimum 90%; x');
});
