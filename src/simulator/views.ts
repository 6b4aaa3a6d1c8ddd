/**
 * How the simulator's records look on the wire: jobs, test-run and profiling summaries (in the deployment's
 * summary shape), a run's columns and results, and orders with their runs.
 */
import type { SimContext } from './context.js';
import { servingView } from './orders.js';
import { outcomeKey } from './results.js';
import type { JobRecord, ProfilingResult, TestRunResult } from './state.js';

const iso = (ctx: SimContext, ms: number | null) => (ms === null ? null : ctx.clock.iso(ms));

/** The job object of spec section 2.2 (plus the targets, which this simulator's listing carries). */
export function jobView(ctx: SimContext, job: JobRecord, statusOverride?: string) {
  return {
    id: job.id,
    job_key: job.job_key,
    status: statusOverride ?? job.status,
    source: job.source,
    project_code: job.project_code,
    ...(ctx.variants.listingTargets ? { table_group_id: job.table_group_id, test_suite_id: job.test_suite_id } : {}),
    created_at: ctx.clock.iso(job.created_at),
    claimed_at: iso(ctx, job.claimed_at),
    started_at: iso(ctx, job.started_at),
    completed_at: iso(ctx, job.completed_at),
    error_message: job.error_message,
  };
}

/** The engines keep scores in percent; a fraction deployment (TestGen 5.134) reports them from 0 to 1. */
const wireScore = (ctx: SimContext, percent: number) =>
  ctx.variants.scoreScale === 'fraction' ? Math.round(percent * 10) / 1000 : percent;

/** A run's score as the summary shows it: null until the roll-up (`scoreRollupMs` after completion) has run. */
const shownScore = (ctx: SimContext, job: JobRecord, percent: number) =>
  job.completed_at === null || ctx.clock.now() >= job.completed_at + ctx.variants.scoreRollupMs
    ? wireScore(ctx, percent)
    : null;

export function testRunView(ctx: SimContext, job: JobRecord) {
  const r = job.result as TestRunResult | null;
  const score = r && shownScore(ctx, job, r.score);
  const result =
    r &&
    (ctx.variants.summaryShape === 'spec'
      ? { score, result_counts: r.result_counts }
      : { score, tests: r.result_counts });
  return {
    id: job.id,
    status: job.status,
    test_suite_id: job.test_suite_id,
    table_group_id: job.table_group_id,
    started_at: iso(ctx, job.started_at),
    completed_at: iso(ctx, job.completed_at),
    external_url: job.external_url ?? null,
    ...(ctx.variants.callerMetadata ? { metadata: job.caller_metadata ?? null } : {}),
    result: result ?? null,
  };
}

export function profilingView(ctx: SimContext, job: JobRecord) {
  const r = job.result as ProfilingResult | null;
  let result: object | null = null;
  if (r) {
    const { issue_counts, ...rest } = r;
    const score = shownScore(ctx, job, r.score);
    result =
      ctx.variants.summaryShape === 'spec'
        ? { ...r, score }
        : { ...rest, score, issues: { ...issue_counts.hygiene_issues, dismissed: issue_counts.dismissed } };
  }
  const hidden = ctx.variants.runTargetOnceStarted && job.started_at === null;
  return {
    id: job.id,
    status: job.status,
    table_group_id: hidden ? null : job.table_group_id,
    started_at: iso(ctx, job.started_at),
    completed_at: iso(ctx, job.completed_at),
    result,
  };
}

/** One run of a table group's profiling history (TestGen 5.134's `ProfilingRunHistoryItem`). */
export function profilingHistoryItem(ctx: SimContext, job: JobRecord) {
  const r = job.result as ProfilingResult | null;
  return {
    job_execution_id: job.id,
    table_group_id: job.table_group_id,
    status: job.status,
    started_at: iso(ctx, job.started_at),
    completed_at: iso(ctx, job.completed_at),
    profiling_score: r ? wireScore(ctx, r.score) : null,
    table_ct: r?.table_ct ?? null,
    column_ct: r?.column_ct ?? null,
    record_ct: r?.record_ct ?? null,
    error_message: job.error_message,
    issue_counts: r ? { ...r.issue_counts.hygiene_issues, dismissed: r.issue_counts.dismissed } : {},
  };
}

export function ordersView(ctx: SimContext) {
  return Object.values(ctx.state.orders).map((o) => ({
    ...o,
    created_at: ctx.clock.iso(o.created_at),
    servings: o.serving_ids
      .map((id) => ctx.state.servings[id])
      .filter((s) => s !== undefined)
      .map((s) => servingView(ctx, s)),
  }));
}

/** A completed profiling run's column profiles (TestGen 5.134's `GET profiling-runs/{id}/columns`), table by table. */
export function profilingColumns(ctx: SimContext, job: JobRecord) {
  const group = job.table_group_id ? ctx.groups.get(job.table_group_id) : undefined;
  if (job.status !== 'completed' || !group) return [];
  return group.tables.flatMap((t) =>
    t.columns.map((column) => ({
      schema_name: group.schema_name,
      table_name: t.name,
      column_name: column,
      record_ct: t.record_ct,
    })),
  );
}

/** A completed test run's per-test results (TestGen 5.134's `GET test-runs/{id}/results`): its suite's outcomes. */
export function testRunResults(ctx: SimContext, job: JobRecord) {
  const suite = ctx.seed.test_suites.find((s) => s.id === job.test_suite_id);
  if (job.status !== 'completed' || !suite) return [];
  return (ctx.state.definitions[suite.id] ?? [])
    .filter((d) => d.test_active !== false)
    .map((d) => ({
      test_type: d.test_type,
      schema_name: d.schema_name || (ctx.groups.get(suite.table_group_id)?.schema_name ?? null),
      table_name: d.table_name,
      column_names: d.column_name,
      result_status: suite.outcomes[outcomeKey(d)] ?? 'passed',
    }));
}
