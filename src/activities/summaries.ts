/**
 * What the service says about a finished job, shaped for the workflow: the test-run and profiling summaries, and
 * whether a test-generation job will follow a profiling run, and which one it is. Used by their own activities and by the waits, which
 * fetch them as soon as they see the job finish (one activity, one workflow task, fewer history events).
 */
import { log } from '@temporalio/activity';
import { NotFound, type ServiceClient } from '../api/index.js';
import type { JobSnapshot, ProfilingSummary, TestRunSummary } from '../contract/types.js';
import { snapshot } from './job-inputs.js';
import { scorePercent, type ScoreScale } from '../vocabulary.js';

interface Call {
  signal: AbortSignal;
  sleep: (ms: number) => Promise<void>;
}

/**
 * A summary, read again while its run is completed and shows no score. TestGen rolls scores up in a separate job
 * after a test or profiling run completes, so a completed run may show no score for a moment: with `awaitScoreMs`, it
 * is fetched again (every 2 s) until the score is there or that time has passed, and only then reported without one.
 */
async function untilScored<S extends { status: string; result?: { score?: number | null } | null }>(
  read: () => Promise<S>,
  awaitScoreMs: number,
  { sleep }: Pick<Call, 'sleep'>,
): Promise<S> {
  const until = Date.now() + awaitScoreMs;
  let s = await read();
  while (s.status === 'completed' && (s.result?.score ?? null) === null && Date.now() < until) {
    await sleep(Math.min(2_000, Math.max(until - Date.now(), 1)));
    s = await read();
  }
  return s;
}

/** The test-run summary, its score awaited up to `awaitScoreMs` (untilScored). */
export async function testRunSummary(
  client: ServiceClient,
  scoreScale: ScoreScale,
  jobId: string,
  awaitScoreMs: number,
  call: Call,
): Promise<TestRunSummary> {
  const s = await untilScored(() => client.testRuns.summary(jobId, { signal: call.signal }), awaitScoreMs, call);
  const c = s.result?.result_counts;
  return {
    jobId: s.id,
    status: s.status,
    testSuiteId: s.test_suite_id,
    tableGroupId: s.table_group_id,
    startedAt: s.started_at,
    completedAt: s.completed_at,
    scorePercent: scorePercent(s.result?.score, scoreScale),
    resultCounts: c
      ? {
          passed: c.passed,
          failed: c.failed,
          warning: c.warning,
          error: c.error,
          log: c.log,
          dismissed: c.dismissed,
        }
      : null,
  };
}

/** The profiling summary, its score awaited up to `awaitScoreMs` (untilScored). */
export async function profilingSummary(
  client: ServiceClient,
  scoreScale: ScoreScale,
  jobId: string,
  awaitScoreMs: number,
  call: Call,
): Promise<ProfilingSummary> {
  const s = await untilScored(() => client.profilingRuns.summary(jobId, { signal: call.signal }), awaitScoreMs, call);
  const r = s.result;
  const h = r?.issue_counts.hygiene_issues;
  const pii = r?.issue_counts.potential_pii;
  return {
    jobId: s.id,
    status: s.status,
    tableGroupId: s.table_group_id,
    startedAt: s.started_at,
    completedAt: s.completed_at,
    scorePercent: scorePercent(r?.score, scoreScale),
    tableCount: r?.table_ct ?? null,
    columnCount: r?.column_ct ?? null,
    recordCount: r?.record_ct ?? null,
    hygieneIssues: h ? { definite: h.definite, likely: h.likely, possible: h.possible } : null,
    potentialPii: pii ? { high: pii.high, moderate: pii.moderate } : null,
    dismissedIssues: r?.issue_counts.dismissed ?? null,
  };
}

export interface GenerationOutlook {
  expected: boolean | null;
  reason: string;
}

/**
 * Whether a test-generation job can follow this table group's profiling run, as far as the deployment says:
 * false when the group has no default test suite, or (TestGen 5.134) when this was not its first completed
 * profiling run (cancelled and failed ones do not count there);
 * null when the deployment does not describe table groups (then the pipeline looks, as before).
 */
export async function generationOutlook(
  client: ServiceClient,
  tableGroupId: string,
  { signal }: Pick<Call, 'signal'>,
): Promise<GenerationOutlook> {
  const unless404 = async <T>(call: () => Promise<T>): Promise<T | undefined> =>
    call().catch((err: unknown) => {
      if (err instanceof NotFound) return undefined;
      throw err;
    });
  const group = await unless404(() => client.tableGroups.get(tableGroupId, { signal }));
  if (!group) return { expected: null, reason: 'the deployment does not describe table groups' };
  if ('default_test_suite_id' in group && group.default_test_suite_id === null)
    return { expected: false, reason: 'the table group has no default test suite, so profiling generates no tests' };
  const runs = await unless404(() => client.tableGroups.completedProfilingRuns(tableGroupId, { signal }));
  if (runs !== undefined && runs > 1)
    return {
      expected: false,
      reason: 'test generation follows only the first completed profiling run of a table group',
    };
  return { expected: null, reason: 'a follow-up may come' };
}

/**
 * The test-generation job the deployment queued after the profiling run of `tableGroupId` that finished at `after`,
 * or null when there is none (yet) or no project code to list jobs in.
 */
export async function followUpGeneration(
  client: ServiceClient,
  input: { tableGroupId: string; projectCode: string | undefined; after: string },
  { signal }: Pick<Call, 'signal'>,
): Promise<JobSnapshot | null> {
  if (!input.projectCode) return null;
  const finished = Date.parse(input.after);
  const list = await client.jobs.list(input.projectCode, { job_key: 'run-test-generation', limit: 100 }, { signal });
  // The follow-up is the one job the service queued itself (not through the API: another workflow's or a person's
  // generation job is never ours to follow or cancel) as the run finished: of its table group where the listing
  // names targets, else near the run's end (TestGen 5.134). Several such jobs cannot be told apart: none is taken.
  const byTarget = list.items.some((j) => 'table_group_id' in j);
  const near = list.items.filter(
    (j) =>
      typeof j.source === 'string' &&
      j.source !== 'api' &&
      (byTarget
        ? j.table_group_id === input.tableGroupId && Date.parse(j.created_at) >= finished - 1_000
        : Math.abs(Date.parse(j.created_at) - finished) <= 30_000),
  );
  if (near.length > 1) log.warn('several follow-up generation jobs; none taken', { ids: near.map((j) => j.id) });
  return near.length === 1 ? snapshot(near[0]!) : null;
}
