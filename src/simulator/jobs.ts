/**
 * The job engine: profiling runs, test runs and test generation, moved along the statuses of spec section 3, plus
 * TestGen 5.134's four (`queued`, `pause_requested`, `paused`, `resume_requested`), by the simulator clock. Every
 * change happens in `advanceJobs`, called before each request, so a clock jump replays every transition in order
 * with the right timestamps (a `queued` job takes a slot when a pass finds one free, at that pass's time).
 */
import { randomUUID } from 'node:crypto';
import type { SimContext } from './context.js';
import { apiError } from './errors.js';
import { generateTests, profilingResult, testRunResult } from './results.js';
import type { JobDurations, JobKey, JobRecord } from './state.js';
import { maybeLive, passOverLive } from './live-jobs.js';

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
  request_id?: string | null;
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
    request_id: args.request_id ?? null,
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

/** Statuses in which a job holds one of the deployment's run slots (TestGen's working statuses). */
const WORKING = new Set(['claimed', 'running', 'interrupt_requested', 'pause_requested']);

function slotFree(ctx: SimContext): boolean {
  const slots = ctx.variants.runSlots;
  if (slots === 0) return true;
  let working = 0;
  for (const job of maybeLive(ctx.state)) if (WORKING.has(job.status)) working++;
  return working < slots;
}

/** A claim at `at`, or `queued` when every run slot is taken. Returns whether the job was claimed. */
function claim(ctx: SimContext, job: JobRecord, at: number): boolean {
  job.phase_started_at = at;
  if (!slotFree(ctx)) {
    job.status = 'queued';
    return false;
  }
  job.status = 'claimed';
  job.claimed_at = at;
  job.claims++;
  return true;
}

/**
 * Whether a completed profiling run is followed by test generation: TestGen 5.134 queues it after the first
 * completed profiling run of a table group with a default suite; the `every-profile` variant after each one.
 */
function generationFollows(ctx: SimContext, job: JobRecord): boolean {
  if (ctx.variants.generationFollows === 'every-profile') return true;
  return !Object.values(ctx.state.jobs).some(
    (j) =>
      j.id !== job.id &&
      j.job_key === 'run-profile' &&
      j.table_group_id === job.table_group_id &&
      j.status === 'completed',
  );
}

function finish(ctx: SimContext, job: JobRecord, at: number): void {
  job.completed_at = at;
  if (job.fail_with !== null) {
    job.status = 'error';
    job.error_message = job.fail_with;
    return;
  }
  if (job.job_key === 'run-profile') {
    job.result = profilingResult(ctx, job.table_group_id);
    const group = ctx.groups.get(job.table_group_id);
    if (group?.auto_generate_suite_id && generationFollows(ctx, job)) {
      submitJob(ctx, {
        job_key: 'run-test-generation',
        source: 'system',
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
  job.status = 'completed';
}

/** Moves one job through every transition that is due by `now`. */
function advance(ctx: SimContext, job: JobRecord, now: number): void {
  for (;;) {
    const d = job.durations;
    const due = (ms: number) => job.phase_started_at + ms;
    switch (job.status) {
      case 'pending':
      case 'resume_requested':
        if (now < due(d.pendingMs)) return;
        if (!claim(ctx, job, due(d.pendingMs))) return;
        break;
      case 'queued':
        if (!claim(ctx, job, Math.max(job.phase_started_at, now))) return;
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
      case 'pause_requested':
        if (now < due(d.interruptMs)) return;
        job.phase_started_at = due(d.interruptMs);
        job.status = job.status === 'interrupt_requested' ? 'interrupted' : 'paused';
        return;
      default:
        return; // terminal; interrupted (waits for the next scheduler start); paused (waits for a resume)
    }
  }
}

export function advanceJobs(ctx: SimContext): void {
  const now = ctx.clock.now();
  // In creation order; a generation job a finishing profiling run appends advances in the same pass.
  passOverLive(
    ctx.state,
    (job) => isTerminal(job.status),
    (job) => advance(ctx, job, now),
  );
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

/**
 * Asks a running job to pause (TestGen 5.134): `pause_requested`, then `paused` (after the interrupt time), where it
 * keeps its progress until someone resumes it.
 */
export function pauseJob(ctx: SimContext, job: JobRecord): JobRecord {
  if (job.status !== 'running')
    throw apiError(409, 'invalid_status_transition', `job ${job.id} is ${job.status}, not running`);
  const now = ctx.clock.now();
  job.run_remaining_ms = Math.max(0, job.run_remaining_ms - (now - job.phase_started_at));
  job.status = 'pause_requested';
  job.phase_started_at = now;
  return job;
}

/**
 * Resumes a paused job: `resume_requested` until the scheduler picks it up (the pending time), then a new claim
 * (or `queued` when every slot is taken), and it runs on for the time it still owed.
 */
export function resumeJob(ctx: SimContext, job: JobRecord): JobRecord {
  if (job.status !== 'paused')
    throw apiError(409, 'invalid_status_transition', `job ${job.id} is ${job.status}, not paused`);
  job.status = 'resume_requested';
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
