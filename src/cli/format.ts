/** How the CLI shows results: readable tables, or JSON with --json. */
import type { z } from 'zod';
import { appliedGates } from '../contract/gates.js';
import type { RootCause } from './failure.js';
import { isCompletedOrderRunStatus } from '../vocabulary.js';
import type {
  DataQualityPipelineResult,
  Gates,
  ProfileTableGroupResult,
  PromoteTestDefinitionsResult,
  PromotionPreview,
  RunOrderResult,
  RunTestSuiteResult,
} from '../contract/index.js';

/** Exit codes: documented in the README. */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  gateFailed: 3,
  cancelled: 4,
  notApplied: 5,
  notFound: 6,
  refused: 7,
  orderRunFailed: 8,
  /** Ctrl+C while waiting (128 + SIGINT, as a shell reports it); the run goes on. */
  interrupted: 130,
} as const;

/** A finished pipeline's exit code: its gates passed, or not (a report-only run that failed its gates included). */
export const pipelineExit = (r: Pick<DataQualityPipelineResult, 'status'>): number =>
  r.status === 'passed' ? EXIT.ok : EXIT.gateFailed;

/** A failed workflow's exit code: cancelled, its gates failed (`--on-gate-failure fail`), or any other failure. */
export function failureExit(root: Pick<RootCause, 'cancelled' | 'type'>): number {
  if (root.cancelled) return EXIT.cancelled;
  return root.type === 'QualityGateFailed' ? EXIT.gateFailed : EXIT.failed;
}

/**
 * A finished order's exit code: its run, when waited for, completed or not (`SERVING_ERROR`, `STOPPED_SERVING`,
 * `SERVING_RERAN`), by the rule that fails a pipeline's order with `OrderFailed`; the order alone reports the run's
 * status and completes, and a script that goes on after `dataops order --wait-for-run` must not take a failed run
 * for a good one.
 */
export const orderExit = (r: Pick<RunOrderResult, 'orderRun'>): number =>
  r.orderRun && !isCompletedOrderRunStatus(r.orderRun.status) ? EXIT.orderRunFailed : EXIT.ok;

/** A finished promotion's exit code: applied, or not (rejected, or its approval timed out). */
export const promotionExit = (r: Pick<PromoteTestDefinitionsResult, 'status'>): number =>
  r.status === 'applied' ? EXIT.ok : EXIT.notApplied;

export function table(rows: [string, unknown][]): string {
  const width = Math.max(...rows.map(([k]) => k.length));
  const show = (v: unknown): string => {
    if (v === null || v === undefined) return '-';
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    return JSON.stringify(v);
  };
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${show(v)}`).join('\n');
}

/**
 * A row with a job's page in the service's UI, where the worker knows one (DATAOPS_SERVICE_UI_URL; an order run's from
 * its account, GET /v2/userinfo); else none.
 */
const page = (label: string, url: string | undefined): [string, unknown][] => (url ? [[label, url]] : []);

const counts = (c: Record<string, number> | null | undefined) =>
  c
    ? Object.entries(c)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')
    : '-';
/** A score in percent, or 'not available' (never 0, which would read as a real score). */
const percent = (v: number | null) => (v === null ? 'not available' : `${v} %`);
const minutes = (ms: number | null) => (ms === null ? '-' : `${(ms / 1000).toFixed(1)} s`);

/** The limits a pipeline was given: its input's `gates`, as a caller writes them. */
export type GateLimits = z.input<typeof Gates>;

/**
 * The gates row: the violations, or what passed. With no limit set every run passes, which must not read as a clean
 * run. The verdict names its limits; one from before contract 0.3 does not, and `gates` (its input's) stands in.
 */
export function gatesRow(verdict: DataQualityPipelineResult['gates'], gates?: GateLimits): string {
  if (!verdict.passed) return verdict.violations.join('; ');
  const applied = verdict.limits ?? (gates && appliedGates(gates));
  if (!applied) return 'all passed';
  const limits = [
    applied.minScorePercent !== null ? `score ≥ ${applied.minScorePercent} %` : null,
    applied.maxFailed !== null
      ? `failed${applied.warningsAsFailures ? ' + warnings' : ''} ≤ ${applied.maxFailed}`
      : null,
    applied.maxErrors !== null ? `errors ≤ ${applied.maxErrors}` : null,
  ].filter((l) => l !== null);
  return limits.length
    ? `passed: ${limits.join(', ')}`
    : 'none set, so every run passes (--min-score-percent, --max-failed, --max-errors)';
}

export function formatPipeline(r: DataQualityPipelineResult, gates?: GateLimits): string {
  const rows: [string, unknown][] = [
    ['verdict', r.status === 'passed' ? 'PASSED' : 'FAILED'],
    ['order', r.order ? `${r.order.orderId} (${r.order.orderRun?.status ?? r.order.status ?? 'created'})` : null],
    ...page('order run page', r.order?.orderRun?.url),
    ['profiling job', `${r.profiling.job.jobId} ${r.profiling.job.wait.job.status}`],
    ...page('profiling page', r.profiling.job.url),
    ['profiling score', percent(r.profiling.summary.scorePercent)],
    [
      'profiling',
      `${r.profiling.summary.tableCount} tables, ${r.profiling.summary.columnCount} columns, ${r.profiling.summary.recordCount} records`,
    ],
    ['hygiene issues', counts(r.profiling.summary.hygieneIssues)],
    [
      'profiling time',
      `${minutes(r.profiling.job.wait.durationMs)} (interrupts ${r.profiling.job.wait.interrupts}, claims ${r.profiling.job.wait.claims})`,
    ],
    ['test generation', r.generation ? `${r.generation.jobId} ${r.generation.wait.job.status}` : 'none'],
    ['test run', `${r.testRun.job.jobId} ${r.testRun.job.wait.job.status}`],
    ...page('test run page', r.testRun.job.url),
    ['test score', percent(r.testRun.summary.scorePercent)],
    ['test results', counts(r.testRun.summary.resultCounts)],
    ['gates', gatesRow(r.gates, gates)],
  ];
  return table(rows);
}

export function formatProfile(r: ProfileTableGroupResult): string {
  return table([
    ['job', `${r.job.jobId} ${r.job.wait.job.status}`],
    ...page('page', r.job.url),
    ['score', percent(r.summary.scorePercent)],
    ['tables / columns / records', `${r.summary.tableCount} / ${r.summary.columnCount} / ${r.summary.recordCount}`],
    ['hygiene issues', counts(r.summary.hygieneIssues)],
    ['potential PII', counts(r.summary.potentialPii)],
    [
      'duration',
      `${minutes(r.job.wait.durationMs)} (interrupts ${r.job.wait.interrupts}, claims ${r.job.wait.claims})`,
    ],
  ]);
}

export function formatTestRun(r: RunTestSuiteResult): string {
  return table([
    ['job', `${r.job.jobId} ${r.job.wait.job.status}`],
    ...page('page', r.job.url),
    ['score', percent(r.summary.scorePercent)],
    ['results', counts(r.summary.resultCounts)],
    ['duration', minutes(r.job.wait.durationMs)],
  ]);
}

export function formatOrder(r: RunOrderResult): string {
  return table([
    ['order', r.orderId],
    ['status', r.status],
    ['overrides', JSON.stringify(r.variableOverrides)],
    ['order run', r.orderRun ? `${r.orderRun.orderRunId} ${r.orderRun.status}` : 'not waited for'],
    ...page('order run page', r.orderRun?.url),
  ]);
}

export function formatPreview(p: PromotionPreview): string {
  return [
    `preview ${p.previewId} (${p.export.definitions} definitions, ${p.config.on_match}/${p.config.on_new}/${p.config.on_absence}, mode ${p.config.mode})`,
    ...p.diff,
  ].join('\n');
}

/** A preview waiting for its decision, and the two commands that decide it (the approval names the preview). */
export function formatDecisionAsked(workflowId: string, p: PromotionPreview): string {
  return [
    formatPreview(p),
    `approve: dataops approve ${workflowId} --preview-id ${p.previewId}`,
    `reject:  dataops reject ${workflowId} --reason "..."`,
  ].join('\n');
}

export function formatPromotion(r: PromoteTestDefinitionsResult): string {
  const head = `promotion ${r.status.toUpperCase()}${r.decision ? ` (${r.decision.decision}${r.decision.by ? ` by ${r.decision.by}` : ''}${r.decision.comment ? `: ${r.decision.comment}` : ''})` : ''}`;
  return [head, ...r.diff].join('\n');
}

/** The jobs' pages (`<job id> <url>`), from the progress when a worker answered, else from the memo. */
export function jobPages(jobs: { jobId: string; url?: string }[] | undefined, memo: unknown): string | null {
  const links: Record<string, string> = jobs
    ? Object.fromEntries(jobs.flatMap((j) => (j.url ? [[j.jobId, j.url]] : [])))
    : ((memo as { jobLinks?: Record<string, string> } | undefined)?.jobLinks ?? {});
  const lines = Object.entries(links).map(([id, url]) => `${id} ${url}`);
  return lines.length ? lines.join('; ') : null;
}
