/** The single-job workflows, profileTableGroup and runTestSuite, and the steps the pipeline reuses from them. */
import type { ProfileTableGroupResult, RunTestSuiteResult } from '../contract/index.js';
import type { JobOptions, ProfileTableGroupInput, RunTestSuiteInput } from '../contract/workflows.js';
import { runJob } from './follow.js';
import { checkedInput } from './input.js';
import { Tracker, activitiesWithin } from './shared.js';
import { submitUnderLock } from './submission.js';

export async function profileStep(
  t: Tracker,
  opts: JobOptions,
  tableGroupId: string,
): Promise<ProfileTableGroupResult> {
  const job = await runJob(t, 'profiling', opts, () => submitUnderLock(t, 'profiling', opts, tableGroupId));
  t.stage('fetching profiling summary');
  const summary = await activitiesWithin(opts.outageToleranceMs).call.getProfilingSummary({
    profile: opts.profile,
    jobId: job.jobId,
  });
  return { job, summary };
}

export async function testRunStep(t: Tracker, opts: JobOptions, testSuiteId: string): Promise<RunTestSuiteResult> {
  const job = await runJob(t, 'test_run', opts, () => submitUnderLock(t, 'tests', opts, testSuiteId));
  t.stage('fetching test run summary');
  // The score may be rolled up a moment after the run completes (TestGen): give it up to a minute.
  const summary = await activitiesWithin(opts.outageToleranceMs).call.getTestRunSummary({
    profile: opts.profile,
    jobId: job.jobId,
    awaitScoreMs: 60_000,
  });
  return { job, summary };
}

/** Profiles a table group: submit, wait through interrupts, fetch the summary. */
export async function profileTableGroup(raw: ProfileTableGroupInput): Promise<ProfileTableGroupResult> {
  const t = new Tracker('profileTableGroup');
  return t.run(async () => {
    const input = await checkedInput('profileTableGroup', raw);
    return profileStep(t, input, input.tableGroupId);
  });
}

/** Runs a test suite: submit, wait, fetch the summary. */
export async function runTestSuite(raw: RunTestSuiteInput): Promise<RunTestSuiteResult> {
  const t = new Tracker('runTestSuite');
  return t.run(async () => {
    const input = await checkedInput('runTestSuite', raw);
    return testRunStep(t, input, input.testSuiteId);
  });
}
