/** The profiling and test-run steps: the single-job workflows run one each, the pipeline runs both (jobs.ts, pipeline.ts). */
import type {
  ProfileTableGroupResult,
  ProfilingSummary,
  RunTestSuiteResult,
  TestRunSummary,
} from '../contract/index.js';
import type { JobOptions } from '../contract/workflows.js';
import type { Fetched } from './follow.js';
import { runJob } from './submit-and-wait.js';
import { activitiesWithin, type Tracker } from './shared.js';

/** A score may be rolled up a moment after its run completes (TestGen, test and profiling runs): up to a minute. */
const SCORE_ROLLUP_MS = 60_000;

/** The summary the wait read, or, when it could not, the one the read's own activity fetches (retried as every call). */
async function readUnlessFetched<S>(
  t: Tracker,
  opts: JobOptions,
  what: { label: string; jobId: string; read: 'getProfilingSummary' | 'getTestRunSummary' },
  fetched: S | undefined,
): Promise<S> {
  if (fetched) return fetched;
  t.stage(`fetching ${what.label} summary`);
  const read = activitiesWithin(opts.outageToleranceMs).call[what.read] as (input: unknown) => Promise<S>;
  return read({ profile: opts.profile, jobId: what.jobId, awaitScoreMs: SCORE_ROLLUP_MS });
}

/**
 * Profiles a table group and reads its summary: the wait reads it as it sees the run complete, and only when that
 * read failed does a separate activity fetch it. With `generationOutlookOf`, the wait also reads whether a
 * test-generation job will follow (the pipeline's next step), and looks for it once.
 */
export async function profileStep(
  t: Tracker,
  opts: JobOptions,
  tableGroupId: string,
  generationOutlookOf?: string,
): Promise<{ result: ProfileTableGroupResult; fetched: Fetched }> {
  const after = {
    summary: 'profiling' as const,
    awaitScoreMs: SCORE_ROLLUP_MS,
    ...(generationOutlookOf ? { generationOutlookOf } : {}),
    ...(generationOutlookOf && opts.projectCode ? { projectCode: opts.projectCode } : {}),
  };
  const { run: job, fetched } = await runJob(t, 'profiling', opts, 'profiling', tableGroupId, after);
  const summary = await readUnlessFetched(
    t,
    opts,
    { label: 'profiling', jobId: job.jobId, read: 'getProfilingSummary' },
    fetched.summary as ProfilingSummary | undefined,
  );
  t.jobDone(job.jobId, { profiling: summary });
  return { result: { job, summary }, fetched };
}

/** Runs a test suite and reads its summary (read by the wait when it can, as in profileStep). */
export async function testRunStep(t: Tracker, opts: JobOptions, testSuiteId: string): Promise<RunTestSuiteResult> {
  const after = { summary: 'test_run' as const, awaitScoreMs: SCORE_ROLLUP_MS };
  const { run: job, fetched } = await runJob(t, 'test_run', opts, 'tests', testSuiteId, after);
  const summary = await readUnlessFetched(
    t,
    opts,
    { label: 'test run', jobId: job.jobId, read: 'getTestRunSummary' },
    fetched.summary as TestRunSummary | undefined,
  );
  t.jobDone(job.jobId, { testRun: summary });
  return { job, summary };
}
