/**
 * Shared workflow machinery: progress tracking, input validation, and running a remote job with the cancellation
 * rules of ARCHITECTURE decision 6. Deterministic code: no Node modules, no service client, activity types only.
 */
import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  log,
  proxyActivities,
  setHandler,
  upsertMemo,
} from '@temporalio/workflow';
import type { z } from 'zod';
import type { Activities } from '../activities/index.js';
import {
  CALL,
  ORDER,
  SUBMIT,
  TRANSFER,
  deferredPolling,
  heartbeatWaiting,
  isTerminalJobStatus,
  issueLines,
  progressQuery,
  type JobOptions,
  type JobRun,
  type JobSnapshot,
  type JobSubmitted,
  type JobWaitOutcome,
  type Progress,
} from '../contract/index.js';

export const call = proxyActivities<Activities>(CALL);
export const submit = proxyActivities<Activities>(SUBMIT);
export const order = proxyActivities<Activities>(ORDER);
export const transfer = proxyActivities<Activities>(TRANSFER);

/** Parses a workflow input; a bad input fails the workflow at once with InvalidInput listing every problem. */
export function parseWorkflowInput<T extends z.ZodType>(schema: T, input: unknown, workflow: string): z.infer<T> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const problems = issueLines(parsed.error);
  throw ApplicationFailure.create({
    type: 'InvalidInput',
    nonRetryable: true,
    message: `invalid input of ${workflow}: ${problems.join('; ')}`,
    details: [{ problems }],
  });
}

/** The workflow's progress, answered by the `progress` query. */
export class Tracker {
  readonly progress: Progress;

  constructor(workflowType: string) {
    const now = new Date().toISOString();
    this.progress = {
      workflowType,
      stage: 'starting',
      startedAt: now,
      updatedAt: now,
      jobs: [],
      lastStatus: null,
      polls: 0,
      claims: 0,
      interrupts: 0,
      orderId: null,
      remoteCancel: null,
      stuck: null,
      error: null,
    };
    setHandler(progressQuery, () => this.progress);
  }

  stage(stage: string): void {
    this.progress.stage = stage;
    this.touch();
    log.info('stage', { stage });
  }

  touch(): void {
    this.progress.updatedAt = new Date().toISOString();
  }

  addJob(role: string, jobId: string, reconciled: boolean, status: string | null = null): void {
    this.progress.jobs.push({ role, jobId, status, reconciled });
    this.progress.lastStatus = status;
    this.touch();
  }

  jobStatus(jobId: string, status: string): void {
    const job = this.progress.jobs.find((j) => j.jobId === jobId);
    if (job) job.status = status;
    this.progress.lastStatus = status;
    this.touch();
  }

  waited(outcome: JobWaitOutcome): void {
    this.progress.polls += outcome.polls;
    this.progress.claims += outcome.claims;
    this.progress.interrupts += outcome.interrupts;
    this.jobStatus(outcome.job.id, outcome.job.status);
  }

  /** Records a job that held one status longer than the caller's bound: progress, memo and log. */
  stuck(jobId: string, stuck: { status: string; forMs: number }): void {
    this.progress.stuck = { jobId, ...stuck, at: new Date().toISOString() };
    this.jobStatus(jobId, stuck.status);
    upsertMemo({ stuck: this.progress.stuck });
    log.warn('job has held one status longer than maxStatusDurationMs', { jobId, ...stuck });
  }

  /** Runs the workflow body; records a failure's message in the progress before it propagates. */
  async run<T>(body: () => Promise<T>): Promise<T> {
    try {
      const result = await body();
      this.stage('done');
      return result;
    } catch (err) {
      this.progress.error = err instanceof Error ? err.message : String(err);
      this.stage(isCancellation(err) ? 'cancelled' : 'failed');
      throw err;
    }
  }
}

export function strategyOf(opts: JobOptions): 'heartbeat' | 'deferrable' {
  if (opts.waitStrategy !== 'auto') return opts.waitStrategy;
  return opts.expectedDurationMs >= 2 * 3_600_000 ? 'deferrable' : 'heartbeat';
}

/** Waits for a terminal status with the chosen strategy. Cancellable. */
export async function waitForTerminal(
  opts: JobOptions,
  jobId: string,
  maxStatusDurationMs: number | undefined = undefined,
): Promise<JobWaitOutcome> {
  const bound = maxStatusDurationMs === undefined ? {} : { maxStatusDurationMs };
  if (strategyOf(opts) === 'deferrable') {
    const acts = proxyActivities<Activities>(
      deferredPolling(opts.pollIntervalMs, opts.maxPollIntervalMs, opts.maxWaitMs),
    );
    return acts.checkJob({ profile: opts.profile, jobId, ...bound });
  }
  const acts = proxyActivities<Activities>(heartbeatWaiting(opts.maxWaitMs, opts.heartbeatTimeoutMs));
  return acts.waitForJob({
    profile: opts.profile,
    jobId,
    pollIntervalMs: opts.pollIntervalMs,
    maxPollIntervalMs: opts.maxPollIntervalMs,
    ...bound,
  });
}

/**
 * Cancels the remote job and waits (bounded) until it is terminal. Runs in a non-cancellable scope, so it completes
 * even though the workflow itself is being cancelled. Records the job's final status in progress and memo.
 */
export async function cancelRemoteJob(t: Tracker, opts: JobOptions, jobId: string): Promise<void> {
  await CancellationScope.nonCancellable(async () => {
    t.stage('cancelling remote job');
    let final: JobSnapshot | null = null;
    let alreadyTerminal = false;
    try {
      const res = await call.cancelJob({ profile: opts.profile, jobId });
      final = res.job;
      alreadyTerminal = res.alreadyTerminal;
      if (!isTerminalJobStatus(final.status)) {
        const acts = proxyActivities<Activities>(heartbeatWaiting(opts.cancelTimeoutMs, opts.heartbeatTimeoutMs));
        final = (
          await acts.waitForJob({
            profile: opts.profile,
            jobId,
            pollIntervalMs: Math.min(opts.pollIntervalMs, 2_000),
            maxPollIntervalMs: Math.min(opts.maxPollIntervalMs, 5_000),
          })
        ).job;
      }
    } catch (err) {
      log.warn('the remote job could not be confirmed canceled', { jobId, error: (err as Error).message });
    }
    const finalStatus = final?.status ?? 'unknown';
    t.progress.remoteCancel = { jobId, finalStatus, alreadyTerminal };
    t.jobStatus(jobId, finalStatus);
    upsertMemo({ remoteCancel: t.progress.remoteCancel });
    log.info('remote job after cancellation', { jobId, finalStatus, alreadyTerminal });
  });
}

/**
 * Waits for a known job: cancellation of the workflow cancels the remote job (unless opted out); a job that ends in
 * `error` fails with JobFailed (with its error_message), one canceled from outside with JobCanceled.
 */
export async function followJob(t: Tracker, role: string, opts: JobOptions, submitted: JobSubmitted): Promise<JobRun> {
  t.addJob(role, submitted.jobId, submitted.reconciled);
  t.stage(`waiting for ${role}`);
  let outcome: JobWaitOutcome;
  // A stuck job is reported once per job: the wait then goes on without the bound.
  let bound = opts.maxStatusDurationMs;
  for (;;) {
    try {
      outcome = await waitForTerminal(opts, submitted.jobId, bound);
    } catch (err) {
      if (isCancellation(err) && opts.cancelRemoteJob) await cancelRemoteJob(t, opts, submitted.jobId);
      throw err;
    }
    if (!outcome.stuck) break;
    t.stuck(submitted.jobId, outcome.stuck);
    if (opts.onStatusStuck === 'fail') {
      if (opts.cancelRemoteJob) await cancelRemoteJob(t, opts, submitted.jobId);
      throw ApplicationFailure.create({
        type: 'JobStuck',
        nonRetryable: true,
        message: `${role} job ${submitted.jobId} stayed ${outcome.stuck.status} for ${outcome.stuck.forMs} ms, longer than maxStatusDurationMs ${bound}${opts.cancelRemoteJob ? `; it was cancelled (final status ${t.progress.remoteCancel?.finalStatus ?? 'unknown'})` : '; it was left running (cancelRemoteJob is false)'}`,
        details: [{ job: outcome.job, stuck: outcome.stuck, remoteCancel: t.progress.remoteCancel }],
      });
    }
    bound = undefined;
  }
  t.waited(outcome);
  const job = outcome.job;
  if (job.status === 'error')
    throw ApplicationFailure.create({
      type: 'JobFailed',
      nonRetryable: true,
      message: `${role} job ${job.id} failed: ${job.error_message ?? '(no error_message)'}`,
      details: [{ job }],
    });
  if (job.status === 'canceled')
    throw ApplicationFailure.create({
      type: 'JobCanceled',
      nonRetryable: true,
      message: `${role} job ${job.id} was canceled outside this workflow`,
      details: [{ job }],
    });
  return { jobId: submitted.jobId, reconciled: submitted.reconciled, wait: outcome };
}

/**
 * Submits a job and follows it. The submission runs in a non-cancellable scope: a cancel that arrives while it is in
 * flight lets it finish, so the job id is known, and then the job is cancelled (never left running).
 */
export async function runJob(
  t: Tracker,
  role: string,
  opts: JobOptions,
  doSubmit: () => Promise<JobSubmitted>,
): Promise<JobRun> {
  t.stage(`submitting ${role}`);
  const submitted = await CancellationScope.nonCancellable(doSubmit);
  log.info('job recorded', { role, jobId: submitted.jobId, reconciled: submitted.reconciled });
  return followJob(t, role, opts, submitted);
}
