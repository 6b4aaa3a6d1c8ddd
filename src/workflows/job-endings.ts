/**
 * How a followed job's ending is reported: the failures a workflow ends with when its job failed, was canceled
 * outside it, stayed in one status too long, or outlasted `maxWaitMs`, each saying what became of the job.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import type { JobOptions, JobRun, JobSubmitted, JobWaitOutcome } from '../contract/index.js';
import { leftRunning } from '../exactly-once/workflow/index.js';
import { ranOutOfMaxWait, type Tracker } from './shared.js';

/** What became of the job after its wait ended for good: the sentence a failure's message ends with. */
function fate(t: Tracker, opts: JobOptions): string {
  const cancel = t.progress.remoteCancel;
  if (!opts.cancelRemoteJob) return 'it was left running (cancelRemoteJob is false)';
  if (cancel?.alreadyTerminal) return `it had already ended (final status ${cancel.finalStatus})`;
  if (cancel?.confirmed) return `it was cancelled (final status ${cancel.finalStatus})`;
  return `it could not be confirmed cancelled (final status ${cancel?.finalStatus ?? 'unknown'})`;
}

/**
 * The wait ran out of `maxWaitMs` (its activity timed out, or its last retry would have started past that time):
 * the workflow's failure says so, as `JobWaitTimedOut`, with what the wait last saw as its cause. Other failures
 * pass through as they are.
 */
export function waitTimedOut(t: Tracker, role: string, opts: JobOptions, jobId: string, err: unknown) {
  if (!ranOutOfMaxWait(err)) return undefined;
  return ApplicationFailure.create({
    type: 'JobWaitTimedOut',
    nonRetryable: true,
    message: `gave up waiting for ${role} job ${jobId} after maxWaitMs ${opts.maxWaitMs} ms; ${fate(t, opts)}`,
    cause: err,
    details: [{ jobId, maxWaitMs: opts.maxWaitMs, remoteCancel: t.progress.remoteCancel, leftRunning: leftRunning(t) }],
  });
}

/**
 * A job's wait has ended with `wait`: records it, and fails JobFailed for a job that ended in `error` (with its
 * error_message), JobCanceled for one canceled outside this workflow.
 */
export function concluded(t: Tracker, role: string, submitted: JobSubmitted, wait: JobWaitOutcome): JobRun {
  t.waited(wait);
  const job = wait.job;
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
  const url = t.urlOf(submitted.jobId);
  return { jobId: submitted.jobId, reconciled: submitted.reconciled, wait, ...(url ? { url } : {}) };
}

/** The job held one non-terminal status longer than `bound` (maxStatusDurationMs), with `onStatusStuck: fail`. */
export function jobStuck(
  t: Tracker,
  role: string,
  opts: JobOptions,
  jobId: string,
  job: JobWaitOutcome['job'],
  stuck: NonNullable<JobWaitOutcome['stuck']>,
  bound: number | undefined,
) {
  return ApplicationFailure.create({
    type: 'JobStuck',
    nonRetryable: true,
    message: `${role} job ${jobId} stayed ${stuck.status} for ${stuck.forMs} ms, longer than maxStatusDurationMs ${bound}; ${fate(t, opts)}`,
    details: [{ job, stuck, remoteCancel: t.progress.remoteCancel, leftRunning: leftRunning(t) }],
  });
}
