/**
 * Running a remote job: waiting for it with the chosen strategy, and the cancellation rules of ARCHITECTURE
 * decision 6 — every ending of the wait cancels the job, and only a confirmed cancel is reported as one.
 */
import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  log,
  proxyActivities,
  sleep,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { WaitResult } from '../activities/completion.js';
import { deferredPolling, heartbeatWaiting, waitsTaskQueue } from '../contract/activity-options.js';
import type { JobOptions, JobRun, JobSnapshot, JobSubmitted, Progress } from '../contract/index.js';
import { isTerminalJobStatus } from '../vocabulary.js';
import { activitiesWithin, type Tracker } from './shared.js';

export function strategyOf(opts: JobOptions): 'heartbeat' | 'deferrable' {
  if (opts.waitStrategy !== 'auto') return opts.waitStrategy;
  return opts.expectedDurationMs >= 2 * 3_600_000 ? 'deferrable' : 'heartbeat';
}

/** The activity's default when the input does not say (statusReports in the contract). */
const DEFAULT_STATUS_REPORTS = 1;

/** The input's report budget: absent from inputs checked before it existed (recorded in their history). */
const statusReportsOf = (opts: JobOptions): number | undefined => (opts as Partial<JobOptions>).statusReports;

/** What the wait reads as soon as it sees the job complete (a summary, the generation outlook and job), sparing activities. */
export interface AfterCompletion {
  summary?: 'profiling' | 'test_run';
  awaitScoreMs?: number;
  generationOutlookOf?: string;
  projectCode?: string;
}

/** What the wait read after completion; a read it could not make is absent, and the caller makes it itself. */
export type Fetched = Pick<WaitResult, 'summary' | 'generationOutlook' | 'generationJob'>;

/** The heartbeating wait, on the waits task queue (its own slots: see waitsTaskQueue). */
const heartbeatWait = (maxWaitMs: number, heartbeatTimeoutMs: number) =>
  proxyActivities<Activities>({
    ...heartbeatWaiting(maxWaitMs, heartbeatTimeoutMs),
    taskQueue: waitsTaskQueue(workflowInfo().taskQueue),
  }).waitForJob;

/** Waits for a terminal status with the chosen strategy. Cancellable. */
export async function waitForTerminal(
  opts: JobOptions,
  jobId: string,
  maxStatusDurationMs: number | undefined = undefined,
  after: AfterCompletion = {},
): Promise<WaitResult> {
  const statusReports = statusReportsOf(opts);
  const bound = {
    ...(maxStatusDurationMs === undefined ? {} : { maxStatusDurationMs }),
    ...(statusReports === undefined ? {} : { statusReports }),
    ...after,
  };
  if (strategyOf(opts) === 'deferrable') {
    const acts = proxyActivities<Activities>(
      deferredPolling(opts.pollIntervalMs, opts.maxPollIntervalMs, opts.maxWaitMs),
    );
    return acts.checkJob({ profile: opts.profile, jobId, ...bound });
  }
  return heartbeatWait(
    opts.maxWaitMs,
    opts.heartbeatTimeoutMs,
  )({
    profile: opts.profile,
    jobId,
    pollIntervalMs: opts.pollIntervalMs,
    maxPollIntervalMs: opts.maxPollIntervalMs,
    ...bound,
  });
}

type CancelReason = 'workflow_cancelled' | 'workflow_failed' | 'job_stuck';

/**
 * Cancels the remote job and waits (bounded by `cancelTimeoutMs`) until it is terminal. Runs in a non-cancellable
 * scope, so it completes even though the workflow itself is being cancelled; the cancel call retries through an
 * outage like every call. Records the outcome in progress and memo, and says whether the job was seen terminal:
 * an unconfirmed cancel is never reported as a clean one.
 */
export async function cancelRemoteJob(
  t: Tracker,
  opts: JobOptions,
  jobId: string,
  reason: CancelReason,
): Promise<NonNullable<Progress['remoteCancel']>> {
  return CancellationScope.nonCancellable(async () => {
    t.stage('cancelling remote job');
    let final: JobSnapshot | null = null;
    let alreadyTerminal = false;
    let error: string | null;
    // The cancel has its own budget, cancelTimeoutMs: calls retry through blips within it, and a call that fails for
    // good (a garbled or broken answer) is tried again until the job is seen terminal or the budget is spent.
    const deadline = Date.now() + opts.cancelTimeoutMs;
    const { call } = activitiesWithin(Math.max(opts.cancelTimeoutMs, 60_000));
    for (let round = 1; ; round++) {
      try {
        const res = await call.cancelJob({ profile: opts.profile, jobId });
        final = res.job;
        if (round === 1) alreadyTerminal = res.alreadyTerminal;
        if (!isTerminalJobStatus(final.status)) {
          const left = Math.max(deadline - Date.now(), 1_000);
          final = (
            await heartbeatWait(
              left,
              opts.heartbeatTimeoutMs,
            )({
              profile: opts.profile,
              jobId,
              pollIntervalMs: Math.min(opts.pollIntervalMs, 2_000),
              maxPollIntervalMs: Math.min(opts.maxPollIntervalMs, 5_000),
              // The outcome is recorded when the cancel is confirmed: no report while it is under way.
              statusReports: 0,
            })
          ).job;
        }
        error = null;
        break;
      } catch (err) {
        error = rootMessage(err);
        const left = deadline - Date.now();
        log.warn('the remote job is not confirmed canceled yet', { jobId, error, round });
        if (left < 1_000) break;
        await sleep(Math.min(left, 500 * 2 ** Math.min(round, 6)));
      }
    }
    const confirmed = final !== null && isTerminalJobStatus(final.status);
    const outcome = { jobId, finalStatus: final?.status ?? 'unknown', alreadyTerminal, confirmed, reason, error };
    t.progress.remoteCancel = outcome;
    t.settled(jobId, outcome.finalStatus);
    upsertMemo({ remoteCancel: outcome });
    log.info('remote job after cancellation', outcome);
    return outcome;
  });
}

/** The message at the root of a failure chain (ActivityFailure → ApplicationFailure → …). */
export function rootMessage(err: unknown): string {
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

/**
 * The workflow was cancelled while its job ran: cancel the job, and end cancelled only when the job is confirmed
 * terminal. Otherwise fail RemoteCancelUnconfirmed: "cancelled" would claim what did not happen.
 */
async function cancelForCancellation(t: Tracker, opts: JobOptions, jobId: string, err: unknown): Promise<never> {
  const outcome = await cancelRemoteJob(t, opts, jobId, 'workflow_cancelled');
  if (outcome.confirmed) throw err;
  throw ApplicationFailure.create({
    type: 'RemoteCancelUnconfirmed',
    nonRetryable: true,
    message: `the workflow was cancelled, but job ${jobId} could not be confirmed canceled (last status ${outcome.finalStatus}${outcome.error ? `; ${outcome.error}` : ''}); it may still be running`,
    details: [{ remoteCancel: outcome }],
  });
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
): Promise<{ run: JobRun; fetched: Fetched }> {
  // A job the service just accepted is pending (its later statuses come from the wait's reports); a reconciled or
  // found one's status is unknown until the wait reports it.
  const live = (statusReportsOf(opts) ?? DEFAULT_STATUS_REPORTS) > 0;
  t.addJob(role, submitted.jobId, submitted.reconciled, submitted.reconciled ? null : 'pending', live);
  t.stage(`waiting for ${role}`);
  let outcome: WaitResult;
  // A stuck job is reported once per job: the wait then goes on without the bound.
  let bound = opts.maxStatusDurationMs;
  for (;;) {
    try {
      outcome = await waitForTerminal(opts, submitted.jobId, bound, after);
    } catch (err) {
      // Whatever ends the wait (a cancel, a failure retries cannot fix: a schema break, a 404, a 401; the wait's own
      // deadline), the job may still be running: cancel it rather than leave it running with nobody watching.
      if (!opts.cancelRemoteJob) throw err;
      if (isCancellation(err)) return cancelForCancellation(t, opts, submitted.jobId, err);
      await cancelRemoteJob(t, opts, submitted.jobId, 'workflow_failed');
      throw err;
    }
    if (!outcome.stuck) break;
    t.stuck(submitted.jobId, outcome.stuck);
    if (opts.onStatusStuck === 'fail') {
      if (opts.cancelRemoteJob) await cancelRemoteJob(t, opts, submitted.jobId, 'job_stuck');
      throw ApplicationFailure.create({
        type: 'JobStuck',
        nonRetryable: true,
        message: `${role} job ${submitted.jobId} stayed ${outcome.stuck.status} for ${outcome.stuck.forMs} ms, longer than maxStatusDurationMs ${bound}${opts.cancelRemoteJob ? `; ${t.progress.remoteCancel?.confirmed ? 'it was cancelled' : 'it could not be confirmed cancelled'} (final status ${t.progress.remoteCancel?.finalStatus ?? 'unknown'})` : '; it was left running (cancelRemoteJob is false)'}`,
        details: [{ job: outcome.job, stuck: outcome.stuck, remoteCancel: t.progress.remoteCancel }],
      });
    }
    bound = undefined;
  }
  const { summary, generationOutlook, generationJob, ...wait } = outcome;
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
  return {
    run: { jobId: submitted.jobId, reconciled: submitted.reconciled, wait },
    fetched: {
      ...(summary ? { summary } : {}),
      ...(generationOutlook ? { generationOutlook } : {}),
      ...(generationJob !== undefined ? { generationJob } : {}),
    },
  };
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
  after: AfterCompletion = {},
): Promise<{ run: JobRun; fetched: Fetched }> {
  t.stage(`submitting ${role}`);
  const submitted = await CancellationScope.nonCancellable(doSubmit);
  log.info('job recorded', { role, jobId: submitted.jobId, reconciled: submitted.reconciled });
  return followJob(t, role, opts, submitted, after);
}
