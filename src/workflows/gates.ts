/** The quality gates: the verdict on a test-run summary, the pipeline's last step. */
import type { GateVerdict, TestRunSummary } from '../contract/index.js';
import type { Gates } from '../contract/workflows.js';
import { appliedGates } from '../contract/gates.js';

/** Applies the quality gates to a test-run summary. */
export function evaluateGates(summary: TestRunSummary, gates: Gates): GateVerdict {
  const counts = summary.resultCounts;
  const c = counts ?? { passed: 0, failed: 0, warning: 0, error: 0, log: 0, dismissed: 0 };
  const failed = c.failed + (gates.warningsAsFailures ? c.warning : 0);
  const violations: string[] = [];
  // A run without results (none produced yet, or cancelled early) has no counts: never read as zero failures.
  if (!counts && (gates.maxFailed !== undefined || gates.maxErrors !== undefined))
    violations.push('no test results are available, so the failure and error limits cannot be checked');
  const score = summary.scorePercent;
  // A run that produced no result at all scores what the deployment says of nothing (TestGen: 100%): no verdict.
  const ranNothing = counts !== null && Object.values(counts).every((n) => n === 0);
  if (gates.minScorePercent !== undefined) {
    if (score === null) violations.push(`no score is available, and the minimum is ${gates.minScorePercent}%`);
    else if (ranNothing)
      violations.push(
        `the test run produced no results, so its score ${score}% cannot meet the minimum ${gates.minScorePercent}%`,
      );
    else if (score < gates.minScorePercent)
      violations.push(`score ${score}% is below the minimum ${gates.minScorePercent}%`);
  }
  if (counts && gates.maxFailed !== undefined && failed > gates.maxFailed)
    violations.push(
      `${failed} failed test(s)${gates.warningsAsFailures ? ` (warnings counted: ${c.warning})` : ''} exceed the maximum ${gates.maxFailed}`,
    );
  if (counts && gates.maxErrors !== undefined && c.error > gates.maxErrors)
    violations.push(`${c.error} test(s) in error exceed the maximum ${gates.maxErrors}`);
  return {
    passed: violations.length === 0,
    violations,
    evaluated: { scorePercent: score, failed, errors: c.error, warnings: c.warning },
    limits: appliedGates(gates),
  };
}
