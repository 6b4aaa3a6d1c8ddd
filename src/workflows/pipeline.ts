/** The data-quality pipeline: (order) → profile → test generation → test run → summary, with quality gates. */
import { ApplicationFailure, log, metricMeter } from '@temporalio/workflow';
import type { DataQualityPipelineResult, GateVerdict, TestRunSummary } from '../contract/index.js';
import type { DataQualityPipelineInput, Gates } from '../contract/workflows.js';
import { appliedGates } from '../contract/gates.js';
import { profileStep, testRunStep } from './jobs.js';
import { orderStep } from './orders.js';
import { checkedInput } from './input.js';
import { Tracker } from './shared.js';
import { generationStep } from './generation.js';

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

/**
 * The data-quality pipeline: an optional order first, then profile the table group (waiting through interrupts),
 * wait for the follow-up test generation when there is one, run the test suite, fetch its summary, apply the gates.
 */
export async function dataQualityPipeline(raw: DataQualityPipelineInput): Promise<DataQualityPipelineResult> {
  const t = new Tracker('dataQualityPipeline');
  return t.run(async () => {
    const input = await checkedInput('dataQualityPipeline', raw, t, arguments.length);
    const about = { tableGroupId: input.tableGroupId, testSuiteId: input.testSuiteId };
    t.search.set({ ...about, stage: input.order ? 'order' : 'profiling' });
    const order = input.order ? await orderStep(t, input, input.order) : null;
    // The checks that follow judge the data the order loads: after a failed or stopped run they would judge stale
    // data and could pass. So a run that did not complete fails the pipeline, unless the caller opted to go on.
    const orderRunStatus = order?.orderRun?.status;
    if (orderRunStatus !== undefined && orderRunStatus !== 'COMPLETED_SERVING') {
      if (!input.order?.continueOnFailure)
        throw ApplicationFailure.create({
          type: 'OrderFailed',
          nonRetryable: true,
          message: `order ${order?.orderId} ended ${orderRunStatus}, so its data cannot be trusted; nothing was profiled or tested (order.continueOnFailure goes on anyway)`,
          details: [{ order }],
        });
      log.warn('the order run did not complete; going on as asked', { orderId: order?.orderId, orderRunStatus });
    }
    if (input.order) t.search.set({ stage: 'profiling' });
    const looksForGeneration = input.testGeneration === 'auto' || input.testGeneration === 'wait';
    const profiled = await profileStep(
      t,
      input,
      input.tableGroupId,
      looksForGeneration ? input.tableGroupId : undefined,
    );
    const profiling = profiled.result;
    const generation = await generationStep(t, input, profiling.job.wait.job.completed_at, profiled.fetched);

    t.search.set({ stage: 'test_run' });
    const testRun = await testRunStep(t, input, input.testSuiteId);
    t.stage('applying quality gates');
    const gates = evaluateGates(testRun.summary, input.gates);
    t.search.set({ verdict: gates.passed ? 'passed' : 'failed' });
    // Counted once per pipeline: the workflow's meter records nothing while replaying.
    metricMeter
      .createCounter('dataops_gate_verdicts', 'pipelines', "The pipelines' quality-gate verdicts")
      .add(1, { verdict: gates.passed ? 'passed' : 'failed' });
    const result: DataQualityPipelineResult = {
      status: gates.passed ? 'passed' : 'failed',
      order,
      profiling,
      generation,
      testRun,
      gates,
    };
    if (!gates.passed && input.onGateFailure === 'fail')
      throw ApplicationFailure.create({
        type: 'QualityGateFailed',
        nonRetryable: true,
        message: `quality gates failed: ${gates.violations.join('; ')}`,
        details: [result],
      });
    return result;
  });
}
