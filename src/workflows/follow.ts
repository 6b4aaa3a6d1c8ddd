/**
 * Running a remote job: waiting for it with the chosen strategy, and the cancellation rules of ARCHITECTURE
 * decision 6 — every ending of the wait cancels the job, and only a confirmed cancel is reported as one.
 */
import { CancellationScope, CancelledFailure, isCancellation } from '@temporalio/workflow';
import type { WaitResult } from '../activities/completion.js';
import { DEFAULT_STATUS_REPORTS, deferredPolling } from '../contract/activity-options.js';
import type { JobOptions, JobRun, JobSubmitted } from '../contract/index.js';
import {
  asCancelled,
  cancelledByUs,
  cancellingPromptly,
  cancelRemoteJob,
  cancelRequested,
  heartbeatWait,
  unconfirmedCancel,
  type CancelReason,
  type RemoteCancel,
} from '../exactly-once/workflow/index.js';
import { cancelFollowUp } from './follow-up.js';
import { type Tracker } from './shared.js';
import { concluded, jobStuck, waitTimedOut } from './job-endings.js';
import { ourActivities } from './ours.js';

export function strategyOf(opts: JobOptions): 'heartbeat' | 'deferrable' {
  if (opts.waitStrategy !== 'auto') return opts.waitStrategy;
  return opts.expectedDurationMs >= 2 * 3_600_000 ? 'deferrable' : 'heartbeat';
}

/** The input's report budget: absent from inputs checked before it existed (recorded in their history). */
export const statusReportsOf = (opts: JobOptions): number | undefined => (opts as Partial<JobOptions>).statusReports;

/** What the wait reads as soon as it sees the job complete (a summary, the generation outlook and job), sparing activities. */
export interface AfterCompletion {
  summary?: 'profiling' | 'test_run';
  awaitScoreMs?: number;
  generationOutlookOf?: string;
  projectCode?: string;
}

/** What the wait read after completion; a read it could not make is absent, and the caller makes it itself. */
export type Fetched = Pick<WaitResult, 'summary' | 'generationOutlook' | 'generationJob' | 'generationWait'>;

/**
 * How long the profiling wait follows the generation follow-up itself once it finds it (ten polls, at least 5 s, at
 * most a minute, never past the stuck bound): most follow-ups end within it and then cost the workflow no wait of its
 * own. The heartbeating wait polls it in the same attempt; the deferrable one polls it once per attempt.
 */
function followUpMs(opts: JobOptions, after: AfterCompletion): number {
  if (!after.generationOutlookOf) return 0;
  return Math.min(60_000, Math.max(5_000, 10 * opts.pollIntervalMs), opts.maxStatusDurationMs ?? Infinity);
}

/** What a wait is told besides its job: its bounds, its reports, and what to read at the end. */
export function waitBound(
  opts: JobOptions,
  maxStatusDurationMs: number | undefined,
  after: AfterCompletion,
  seenStatus: string | null,
) {
  const statusReports = statusReportsOf(opts);
  const followUp = followUpMs(opts, after);
  return {
    ...(maxStatusDurationMs === undefined ? {} : { maxStatusDurationMs }),
    ...(statusReports === undefined ? {} : { statusReports }),
    ...(seenStatus === null ? {} : { seenStatus }),
    ...after,
    ...(followUp > 0 ? { followUpMs: followUp } : {}),
  };
}

/** What a heartbeating wait is told besides its job (or the job it submits): its polling, then `waitBound`. */
export const heartbeatInput = (opts: JobOptions, bound: ReturnType<typeof waitBound>) => ({
  profile: opts.profile,
  pollIntervalMs: opts.pollIntervalMs,
  maxPollIntervalMs: opts.maxPollIntervalMs,
  ...bound,
});

/** Waits for a terminal status with the chosen strategy. Cancellable. */
export async function waitForTerminal(
  t: Tracker,
  opts: JobOptions,
  jobId: string,
  maxStatusDurationMs: number | undefined = undefined,
  after: AfterCompletion = {},
  seenStatus: string | null = null,
): Promise<WaitResult> {
  const bound = waitBound(opts, maxStatusDurationMs, after, seenStatus);
  if (strategyOf(opts) === 'deferrable') {
    const polling = deferredPolling(opts.pollIntervalMs, opts.maxPollIntervalMs, opts.maxWaitMs);
    return ourActivities(polling).checkJob({
      profile: opts.profile,
      jobId,
      pollIntervalMs: opts.pollIntervalMs,
      ...bound,
    });
  }
  const input = { ...heartbeatInput(opts, bound), jobId };
  // A cancel reaches the job at once, and waits for the wait's answer (cancellingPromptly, remote-cancel.ts); a job
  // left running on cancel (`cancelRemoteJob: false`) is not waited for.
  if (!opts.cancelRemoteJob) return heartbeatWait(t, opts.maxWaitMs, opts.heartbeatTimeoutMs)(input);
  const wait = heartbeatWait(t, opts.maxWaitMs, opts.heartbeatTimeoutMs, true);
  return cancellingPromptly(t, opts, jobId, () => wait(input));
}

/**
 * Cancels the job the wait followed, then the generation follow-up the wait may have been following after it (only
 * when the job is seen completed and a follow-up was looked for). Returns the first cancel that was not confirmed.
 */
async function cancelFollowed(
  t: Tracker,
  opts: JobOptions,
  jobId: string,
  after: AfterCompletion,
  reason: CancelReason,
): Promise<RemoteCancel | null> {
  const { final, ...outcome } = await cancelRemoteJob(t, opts, jobId, reason);
  if (!outcome.confirmed) return outcome;
  const profiledAt = final?.status === 'completed' ? final.completed_at : undefined;
  const followUp = await cancelFollowUp(t, opts, after, profiledAt, reason);
  return followUp && !followUp.confirmed ? followUp : null;
}

/**
 * The workflow was cancelled while its job ran: cancel the job, and end cancelled only when the job is confirmed
 * terminal. Otherwise fail RemoteCancelUnconfirmed: "cancelled" would claim what did not happen.
 */
async function cancelForCancellation(
  t: Tracker,
  opts: JobOptions,
  jobId: string,
  after: AfterCompletion,
  err: unknown,
): Promise<never> {
  const unconfirmed = await cancelFollowed(t, opts, jobId, after, 'workflow_cancelled');
  if (unconfirmed) throw unconfirmedCancel(t, unconfirmed);
  throw asCancelled(err);
}

/**
 * The wait for job `jobId` ended without an outcome (`err`). Whatever ended it (a cancel, a failure retries cannot
 * fix: a schema break, a 404, a 401; the wait's own deadline), the job may still be running: it is cancelled rather
 * than left running with nobody watching. A cancel that is not confirmed fails the workflow RemoteCancelUnconfirmed,
 * which names every job left running.
 */
export async function waitEnded(
  t: Tracker,
  role: string,
  opts: JobOptions,
  jobId: string,
  after: AfterCompletion,
  err: unknown,
): Promise<never> {
  // A wait the cancel kept from being retried (its worker died) ends the workflow cancelled too.
  if (isCancellation(err) || cancelRequested(err)) {
    if (opts.cancelRemoteJob) return cancelForCancellation(t, opts, jobId, after, err);
    throw asCancelled(err); // left running, as asked
  }
  const unconfirmed = opts.cancelRemoteJob ? await cancelFollowed(t, opts, jobId, after, 'workflow_failed') : null;
  // A job whose cancel was not confirmed is named in the failure (with every other job left running).
  throw waitTimedOut(t, role, opts, jobId, err) ?? (unconfirmed ? unconfirmedCancel(t, unconfirmed, err) : err);
}

/**
 * Waits for a known job: cancellation of the workflow cancels the remote job (unless opted out); a job that ends in
 * `error` fails with JobFailed (with its error_message), one canceled from outside with JobCanceled.
 */
export async function followJob(
  t: Tracker,
  role: string,
  opts: JobOptions,
  submitted: JobSubmitted,
  after: AfterCompletion = {},
  seenStatus: string | null = null,
): Promise<{ run: JobRun; fetched: Fetched }> {
  // A job the service just accepted is pending (its later statuses come from the wait's reports); a found one has the
  // status it was seen in (`seenStatus`: its wait then does not report that one again); a reconciled one's status is
  // unknown until the wait reports it.
  const live = (statusReportsOf(opts) ?? DEFAULT_STATUS_REPORTS) > 0;
  const status = seenStatus ?? (submitted.reconciled ? null : 'pending');
  if (!t.hasJob(submitted.jobId)) t.addJob(role, submitted.jobId, submitted.reconciled, status, live);
  t.stage(`waiting for ${role}`);
  let outcome: WaitResult;
  // A stuck job is reported once per job: the wait then goes on without the bound.
  let bound = opts.maxStatusDurationMs;
  for (;;) {
    try {
      outcome = await waitForTerminal(t, opts, submitted.jobId, bound, after, seenStatus);
    } catch (err) {
      return waitEnded(t, role, opts, submitted.jobId, after, err);
    }
    // The cancel came with the wait's answer (one workflow task held both: its worker stalled or was away). One that
    // leaves its job alone ends cancelled, as asked, not completed with the job (explorer seed 58783).
    if (!opts.cancelRemoteJob && CancellationScope.current().consideredCancelled)
      return waitEnded(t, role, opts, submitted.jobId, after, new CancelledFailure('cancelled as its wait answered'));
    // The wait saw the cancel this workflow made before it heard of the workflow's: the workflow was cancelled.
    if (outcome.job.status === 'canceled' && cancelledByUs(t, submitted.jobId))
      return waitEnded(t, role, opts, submitted.jobId, after, new CancelledFailure('cancelled while its job ran'));
    if (!outcome.stuck) break;
    t.stuck(submitted.jobId, outcome.stuck);
    if (opts.onStatusStuck === 'fail') {
      if (opts.cancelRemoteJob) await cancelFollowed(t, opts, submitted.jobId, after, 'job_stuck');
      throw jobStuck(t, role, opts, submitted.jobId, outcome.job, outcome.stuck, bound);
    }
    bound = undefined;
  }
  const { summary, generationOutlook, generationJob, generationWait, ...wait } = outcome;
  const run = concluded(t, role, submitted, wait);
  return {
    run,
    fetched: {
      ...(summary ? { summary } : {}),
      ...(generationOutlook ? { generationOutlook } : {}),
      ...(generationJob !== undefined ? { generationJob } : {}),
      ...(generationWait ? { generationWait } : {}),
    },
  };
}
