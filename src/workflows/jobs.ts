/**
 * The single-job workflows: profileTableGroup, runTestSuite and runOrder, one step each (job-steps.ts, orders.ts).
 * Exported only under their registered names, so every function exported here is a workflow the worker registers
 * (index.ts); a new one is registered by being added here.
 */
import type { ProfileTableGroupResult, RunOrderResult, RunTestSuiteResult } from '../contract/index.js';
import type { ProfileTableGroupInput, RunOrderInput, RunTestSuiteInput } from '../contract/workflows.js';
import { checkedInput } from './input.js';
import { profileStep, testRunStep } from './job-steps.js';
import { orderFacts, orderStep } from './orders.js';
import { Tracker } from './shared.js';
import { openingSearch } from '../contract/search-attributes.js';
import { isCompletedOrderRunStatus } from '../vocabulary.js';

/** Profiles a table group: submit, wait through interrupts, fetch the summary. */
async function profileTableGroup(raw: ProfileTableGroupInput): Promise<ProfileTableGroupResult> {
  const t = new Tracker('profileTableGroup');
  return t.run(async () => {
    const input = await checkedInput('profileTableGroup', raw, t, arguments.length);
    t.search.set(openingSearch('profileTableGroup', input));
    const { result } = await profileStep(t, input, input.tableGroupId);
    t.facts = { profiling: result.summary };
    return result;
  });
}

/** Runs a test suite: submit, wait, fetch the summary. */
async function runTestSuite(raw: RunTestSuiteInput): Promise<RunTestSuiteResult> {
  const t = new Tracker('runTestSuite');
  return t.run(async () => {
    const input = await checkedInput('runTestSuite', raw, t, arguments.length);
    t.search.set(openingSearch('runTestSuite', input));
    const result = await testRunStep(t, input, input.testSuiteId);
    t.facts = { testRun: result.summary };
    return result;
  });
}

/** Runs an order in a kitchen, with runtime overrides; optionally waits for the order run to finish. */
async function runOrder(raw: RunOrderInput): Promise<RunOrderResult> {
  const t = new Tracker('runOrder');
  return t.run(async () => {
    const input = await checkedInput('runOrder', raw, t, arguments.length);
    t.search.set(openingSearch('runOrder', input));
    const result = await orderStep(t, input, input);
    t.facts = orderFacts(result);
    // The workflow completes either way (the caller reads the run's status); its lineage says whether the run did.
    const run = result.orderRun;
    if (run && !isCompletedOrderRunStatus(run.status))
      t.failedVerdict = {
        type: 'OrderFailed',
        error: `the run ${run.orderRunId} of order ${result.orderId} ended ${run.status}`,
      };
    return result;
  });
}

export {
  profileTableGroup as 'dataops.profileTableGroup',
  runTestSuite as 'dataops.runTestSuite',
  runOrder as 'dataops.runOrder',
};
