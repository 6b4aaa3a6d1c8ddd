/** The data-quality pipeline: (order) → profile → test generation → test run → summary, with quality gates. */
import { ApplicationFailure, log, metricMeter } from '@temporalio/workflow';
import type { DataQualityPipelineResult } from '../contract/index.js';
import type { DataQualityPipelineInput } from '../contract/workflows.js';
import { profileStep, testRunStep } from './job-steps.js';
import { evaluateGates } from './gates.js';
import { orderFacts, orderStep } from './orders.js';
import { checkedInput } from './input.js';
import { Tracker } from './shared.js';
import { generationStep } from './generation.js';
import { openingSearch } from '../contract/search-attributes.js';
import { isCompletedOrderRunStatus } from '../vocabulary.js';

/**
 * The data-quality pipeline: an optional order first, then profile the table group (waiting through interrupts),
 * wait for the follow-up test generation when there is one, run the test suite, fetch its summary, apply the gates.
 */
async function dataQualityPipeline(raw: DataQualityPipelineInput): Promise<DataQualityPipelineResult> {
  const t = new Tracker('dataQualityPipeline');
  return t.run(async () => {
    const input = await checkedInput('dataQualityPipeline', raw, t, arguments.length);
    t.search.set(openingSearch('dataQualityPipeline', input));
    const order = input.order ? await orderStep(t, input, input.order) : null;
    // The checks that follow judge the data the order loads: after a failed or stopped run they would judge stale
    // data and could pass. So a run that did not complete fails the pipeline, unless the caller opted to go on.
    const orderRunStatus = order?.orderRun?.status;
    if (orderRunStatus !== undefined && !isCompletedOrderRunStatus(orderRunStatus)) {
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
    t.facts = {
      testRun: testRun.summary,
      gates: { passed: gates.passed, violations: gates.violations },
      ...(order ? orderFacts(order) : {}),
    };
    t.search.set({ verdict: gates.passed ? 'passed' : 'failed' });
    const gatesFailed = `quality gates failed: ${gates.violations.join('; ')}`;
    if (!gates.passed) t.failedVerdict = { type: 'QualityGateFailed', error: gatesFailed };
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
        message: gatesFailed,
        details: [result],
      });
    return result;
  });
}

/** Registered under its contract name only (index.ts registers every export). */
export { dataQualityPipeline as 'dataops.dataQualityPipeline' };
