/**
 * The job engine: profiling runs, test runs and test generation, moved along the statuses of spec section 3 by the
 * simulator clock. Every change happens in `advanceJobs`, called before each request, so a clock jump replays every
 * transition in order with the right timestamps.
 */
import { randomUUID } from 'node:crypto';
import type { SimContext } from './context.js';
import { apiError } from './errors.js';
import type { Outcome } from './seed.js';
import type { DefinitionRecord, JobDurations, JobKey, JobRecord, ProfilingResult, TestRunResult } from './state.js';

export const TERMINAL = new Set(['completed', 'error', 'canceled']);

export function isTerminal(status: string): boolean {
  return TERMINAL.has(status);
}

interface SubmitArgs {
  job_key: JobKey;
  source: string;
  project_code: string;
  table_group_id: string;
  test_suite_id: string | null;
  created_by: string | null;
  external_url?: string | null;
  caller_metadata?: Record<string, unknown> | null;
  at?: number;
}

function takePlan(ctx: SimContext, jobKey: JobKey, targetId: string) {
  const plan = ctx.state.job_plans.find(
    (p) => p.remaining > 0 && (!p.job_key || p.job_key === jobKey) && (!p.target_id || p.target_id === targetId),
  );
  if (!plan) return undefined;
  plan.remaining--;
  ctx.state.job_plans = ctx.state.job_plans.filter((p) => p.remaining > 0);
  return plan;
}

export function submitJob(ctx: SimContext, args: SubmitArgs): JobRecord {
  const at = args.at ?? ctx.clock.now();
  const plan = takePlan(ctx, args.job_key, args.test_suite_id ?? args.table_group_id);
  const durations: JobDurations = { ...ctx.state.job_durations, ...plan?.durations };
  const job: JobRecord = {
    id: randomUUID(),
    job_key: args.job_key,
    source: args.source,
    project_code: args.project_code,
    table_group_id: args.table_group_id,
    test_suite_id: args.test_suite_id,
    external_url: args.external_url ?? null,
    caller_metadata: args.caller_metadata ?? null,
    status: 'pending',
    created_at: at,
    claimed_at: null,
    started_at: null,
    completed_at: null,
    error_message: null,
    created_by: args.created_by,
    phase_started_at: at,
    run_remaining_ms: durations.runMs,
    durations,
    fail_with: plan?.fail_with ?? null,
    claims: 0,
    interrupts: 0,
    result: null,
  };
  ctx.state.jobs[job.id] = job;
  ctx.state.job_order.push(job.id);
  return job;
}

function finish(ctx: SimContext, job: JobRecord, at: number): void {
  job.completed_at = at;
  if (job.fail_with !== null) {
    job.status = 'error';
    job.error_message = job.fail_with;
    return;
  }
  job.status = 'completed';
  if (job.job_key === 'run-profile') {
    job.result = profilingResult(ctx, job.table_group_id);
    const group = ctx.groups.get(job.table_group_id);
    if (group?.auto_generate_suite_id) {
      submitJob(ctx, {
        job_key: 'run-test-generation',
        source: 'scheduler',
        project_code: job.project_code,
        table_group_id: job.table_group_id,
        test_suite_id: group.auto_generate_suite_id,
        created_by: null,
        at,
      });
    }
  } else if (job.job_key === 'run-tests' && job.test_suite_id) {
    job.result = testRunResult(ctx, job.test_suite_id);
  } else if (job.job_key === 'run-test-generation' && job.test_suite_id) {
    generateTests(ctx, job.table_group_id, job.test_suite_id, at);
  }
}

/** Moves one job through every transition that is due by `now`. */
function advance(ctx: SimContext, job: JobRecord, now: number): void {
  for (;;) {
    const d = job.durations;
    const due = (ms: number) => job.phase_started_at + ms;
    switch (job.status) {
      case 'pending':
        if (now < due(d.pendingMs)) return;
        job.phase_started_at = due(d.pendingMs);
        job.status = 'claimed';
        job.claimed_at = job.phase_started_at;
        job.claims++;
        break;
      case 'claimed':
        if (now < due(d.claimMs)) return;
        job.phase_started_at = due(d.claimMs);
        job.status = 'running';
        job.started_at ??= job.phase_started_at; // started_at never moves again
        break;
      case 'running':
        if (now < due(job.run_remaining_ms)) return;
        job.phase_started_at = due(job.run_remaining_ms);
        job.run_remaining_ms = 0;
        finish(ctx, job, job.phase_started_at);
        return;
      case 'cancel_requested':
        if (now < due(d.cancelMs)) return;
        job.status = 'canceled';
        job.completed_at = due(d.cancelMs);
        return;
      case 'interrupt_requested':
        if (now < due(d.interruptMs)) return;
        job.phase_started_at = due(d.interruptMs);
        job.status = 'interrupted';
        return;
      default:
        return; // terminal; interrupted (waits for the next scheduler start); paused (waits for a resume)
    }
  }
}

export function advanceJobs(ctx: SimContext): void {
  const now = ctx.clock.now();
  // Iterate by index: finishing a profiling run may append a generation job, which must advance too.
  for (let i = 0; i < ctx.state.job_order.length; i++) {
    const job = ctx.state.jobs[ctx.state.job_order[i] ?? ''];
    if (job && !isTerminal(job.status)) advance(ctx, job, now);
  }
}

/** Cancel request: any non-terminal status moves to `cancel_requested`; a terminal job answers 409. */
export function cancelJob(ctx: SimContext, job: JobRecord): JobRecord {
  ctx.state.counters.cancels[job.id] = (ctx.state.counters.cancels[job.id] ?? 0) + 1;
  if (isTerminal(job.status))
    throw apiError(409, 'invalid_status_transition', `job ${job.id} is already ${job.status} and cannot be canceled`);
  if (job.status !== 'cancel_requested') {
    job.status = 'cancel_requested';
    job.phase_started_at = ctx.clock.now();
  }
  return job;
}

/** Interrupt (a system shutdown partway): profiling runs only, while claimed or running. Progress is kept. */
export function interruptJob(ctx: SimContext, job: JobRecord): JobRecord {
  if (job.job_key !== 'run-profile')
    throw apiError(409, 'invalid_status_transition', `only profiling runs can be interrupted, not ${job.job_key}`);
  if (job.status !== 'running' && job.status !== 'claimed')
    throw apiError(409, 'invalid_status_transition', `job ${job.id} is ${job.status}, not running`);
  const now = ctx.clock.now();
  if (job.status === 'running') job.run_remaining_ms = Math.max(0, job.run_remaining_ms - (now - job.phase_started_at));
  job.status = 'interrupt_requested';
  job.phase_started_at = now;
  job.interrupts++;
  return job;
}

/** Pauses a running job (TestGen 5.134): it holds `paused`, keeping its progress, until someone resumes it. */
export function pauseJob(ctx: SimContext, job: JobRecord): JobRecord {
  if (job.status !== 'running')
    throw apiError(409, 'invalid_status_transition', `job ${job.id} is ${job.status}, not running`);
  const now = ctx.clock.now();
  job.run_remaining_ms = Math.max(0, job.run_remaining_ms - (now - job.phase_started_at));
  job.status = 'paused';
  job.phase_started_at = now;
  return job;
}

/** Resumes a paused job: it runs on for the time it still owed. */
export function resumeJob(ctx: SimContext, job: JobRecord): JobRecord {
  if (job.status !== 'paused')
    throw apiError(409, 'invalid_status_transition', `job ${job.id} is ${job.status}, not paused`);
  job.status = 'running';
  job.phase_started_at = ctx.clock.now();
  return job;
}

/** The next scheduler start: every interrupted run continues with a new claim. */
export function resumeInterrupted(ctx: SimContext): string[] {
  const now = ctx.clock.now();
  const resumed: string[] = [];
  for (const id of ctx.state.job_order) {
    const job = ctx.state.jobs[id];
    if (job?.status !== 'interrupted') continue;
    job.status = 'claimed';
    job.claimed_at = now;
    job.claims++;
    job.phase_started_at = now;
    resumed.push(id);
  }
  return resumed;
}

/** Fails a non-terminal job at once with the given message. */
export function failJob(ctx: SimContext, job: JobRecord, message: string): JobRecord {
  if (isTerminal(job.status))
    throw apiError(409, 'invalid_status_transition', `job ${job.id} is already ${job.status}`);
  job.status = 'error';
  job.error_message = message;
  job.completed_at = ctx.clock.now();
  return job;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * Profiling result of a table group, derived from its seeded tables. Score: 100 × (1 − penalty / (4 × columns)),
 * penalty = 3·definite + 2·likely + 1·possible + 2·PII high + 1·PII moderate, rounded to one decimal, at least 0.
 */
export function profilingResult(ctx: SimContext, tableGroupId: string): ProfilingResult {
  const tables = ctx.groups.get(tableGroupId)?.tables ?? [];
  const sum = (f: (t: (typeof tables)[number]) => number) => tables.reduce((n, t) => n + f(t), 0);
  const hygiene = {
    definite: sum((t) => t.hygiene.definite),
    likely: sum((t) => t.hygiene.likely),
    possible: sum((t) => t.hygiene.possible),
  };
  const pii = { high: sum((t) => t.pii.high), moderate: sum((t) => t.pii.moderate) };
  const columnCt = sum((t) => t.columns.length);
  const penalty = 3 * hygiene.definite + 2 * hygiene.likely + hygiene.possible + 2 * pii.high + pii.moderate;
  return {
    score: columnCt === 0 ? 100 : Math.max(0, round1(100 * (1 - penalty / (4 * columnCt)))),
    table_ct: tables.length,
    column_ct: columnCt,
    record_ct: sum((t) => t.record_ct),
    issue_counts: { hygiene_issues: hygiene, potential_pii: pii, dismissed: sum((t) => t.dismissed) },
  };
}

export function outcomeKey(d: Pick<DefinitionRecord, 'table_name' | 'column_name' | 'test_type'>): string {
  return `${d.table_name}.${d.column_name}:${d.test_type}`;
}

/**
 * Test-run result of a suite: one outcome per active definition (seeded `outcomes`, else passed).
 * Score: 100 × (passed + ½·warning) / (passed + failed + warning + error), rounded to one decimal; 100 when empty.
 */
export function testRunResult(ctx: SimContext, suiteId: string): TestRunResult {
  const outcomes = ctx.seed.test_suites.find((s) => s.id === suiteId)?.outcomes ?? {};
  const counts: Record<Outcome, number> = { passed: 0, failed: 0, warning: 0, error: 0, log: 0, dismissed: 0 };
  for (const d of ctx.state.definitions[suiteId] ?? []) {
    if (d.test_active === false) continue;
    counts[outcomes[outcomeKey(d)] ?? 'passed']++;
  }
  const scored = counts.passed + counts.failed + counts.warning + counts.error;
  return {
    score: scored === 0 ? 100 : round1((100 * (counts.passed + counts.warning / 2)) / scored),
    result_counts: counts,
  };
}

/** The follow-up generation job: creates or refreshes auto-generated definitions, never a locked one. */
function generateTests(ctx: SimContext, tableGroupId: string, suiteId: string, at: number): void {
  const group = ctx.groups.get(tableGroupId);
  const defs = (ctx.state.definitions[suiteId] ??= []);
  for (const g of group?.generated_tests ?? []) {
    const existing = defs.find((d) => d.last_auto_gen_date && outcomeKey(d) === outcomeKey(g));
    if (existing?.lock_refresh === true) continue;
    if (existing) {
      existing.threshold_value = g.threshold_value;
      existing.last_auto_gen_date = new Date(at).toISOString();
    } else {
      defs.push({
        ...g,
        id: randomUUID(),
        test_suite_id: suiteId,
        schema_name: group?.schema_name ?? '',
        last_auto_gen_date: new Date(at).toISOString(),
      });
    }
  }
}
