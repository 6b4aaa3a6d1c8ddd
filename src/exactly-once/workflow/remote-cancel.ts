/**
 * Cancelling a remote job when its workflow ends while the job runs (ARCHITECTURE decision 6): the cancel is retried
 * within its own budget, the job is watched until it is terminal, and only a confirmed cancel is reported as one. A
 * workflow's cancel reaches a job it waits for at once, beside the wait (cancellingPromptly, at the end).
 */
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  isCancellation,
  log,
  sleep,
  upsertMemo,
} from '@temporalio/workflow';
import { callsWithin, heartbeatWaiting } from '../../contract/activity-options.js';
import type { JobOptions, JobSnapshot, Progress } from '../../contract/index.js';
import { isTerminalJobStatus } from '../../vocabulary.js';
import type { Tracker } from '../../workflows/shared.js';
import { ourActivities } from '../../workflows/ours.js';

/**
 * The heartbeating wait, on the worker's waits task queue (its own slots: see waitsTaskQueue). `answerOnCancel`: a
 * cancel waits for the wait's answer (cancellingPromptly, below), so that it neither ends in flight nor hides a job that
 * completed first.
 */
export const heartbeatWait = (t: Tracker, maxWaitMs: number, heartbeatTimeoutMs: number, answerOnCancel = false) =>
  ourActivities({
    ...heartbeatWaiting(maxWaitMs, heartbeatTimeoutMs),
    taskQueue: t.waitsTaskQueue,
    ...(answerOnCancel ? { cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED } : {}),
  }).waitForJob;

export type CancelReason = 'workflow_cancelled' | 'workflow_failed' | 'job_stuck';
export type RemoteCancel = NonNullable<Progress['remoteCancel']>;

type CancelOutcome = RemoteCancel & { final: JobSnapshot | null };

/** The cancels this workflow has made, by job: each job is cancelled once (see cancellingPromptly). */
const cancels = new WeakMap<Tracker, Map<string, Promise<CancelOutcome>>>();

/** The cancel of job `jobId` this workflow has started, if any. */
export const cancelStarted = (t: Tracker, jobId: string): Promise<CancelOutcome> | undefined =>
  cancels.get(t)?.get(jobId);

/** How each cancel still under way hears that its job was seen terminal otherwise, by job (see `seenTerminal`). */
const stoppers = new WeakMap<Tracker, Map<string, (job: JobSnapshot) => void>>();

/**
 * The workflow saw `job` terminal otherwise than through its cancel (the job's wait answered with it): a cancel of it
 * still under way is moot, so it stops at once and records the job as seen. Without this, a cancel that cannot reach
 * the service (an outage) would hold the workflow for `cancelTimeoutMs` and then record `confirmed: false` for a job
 * known to have ended.
 */
export function seenTerminal(t: Tracker, job: JobSnapshot): void {
  if (isTerminalJobStatus(job.status)) stoppers.get(t)?.get(job.id)?.(job);
}

/**
 * Cancels the remote job and waits (bounded by `cancelTimeoutMs`) until it is terminal. Runs in a non-cancellable
 * scope, so it completes even though the workflow itself is being cancelled; the cancel call retries through an
 * outage like every call. Records the outcome in progress and memo, and says whether the job was seen terminal:
 * an unconfirmed cancel is never reported as a clean one. `final` is the job as last seen (null if never read).
 * A job whose cancel has started already gets that cancel's outcome: it is not cancelled twice.
 */
export function cancelRemoteJob(
  t: Tracker,
  opts: JobOptions,
  jobId: string,
  reason: CancelReason,
): Promise<CancelOutcome> {
  const started = cancelStarted(t, jobId);
  if (started) return started;
  const byJob = cancels.get(t) ?? new Map<string, Promise<CancelOutcome>>();
  cancels.set(t, byJob);
  const cancel = cancelOnce(t, opts, jobId, reason);
  byJob.set(jobId, cancel);
  return cancel;
}

async function cancelOnce(t: Tracker, opts: JobOptions, jobId: string, reason: CancelReason): Promise<CancelOutcome> {
  return CancellationScope.nonCancellable(async () => {
    t.stage('cancelling remote job');
    // The job seen terminal by its wait meanwhile (seenTerminal) ends the rounds at once: it is the final status.
    const seen: { job: JobSnapshot | null } = { job: null };
    const rounds = new CancellationScope();
    const byJob = stoppers.get(t) ?? new Map<string, (job: JobSnapshot) => void>();
    stoppers.set(t, byJob);
    byJob.set(jobId, (job) => {
      seen.job = job;
      rounds.cancel();
    });
    let tried: Tried | null;
    try {
      tried = await rounds
        .run(() => cancelRounds(t, opts, jobId, () => seen.job !== null))
        .catch((err: unknown) => {
          if (seen.job) return null;
          throw err;
        });
    } finally {
      byJob.delete(jobId);
    }
    // A cancel the rounds confirmed stands; else the job its wait saw ended: on its own, unless it ended canceled
    // (then by this cancel, as far as the workflow can tell).
    const ended = tried?.final && isTerminalJobStatus(tried.final.status) ? null : seen.job;
    const { final, alreadyTerminal, error }: Tried = ended
      ? { final: ended, alreadyTerminal: ended.status !== 'canceled' || (tried?.alreadyTerminal ?? false), error: null }
      : (tried ?? { final: null, alreadyTerminal: false, error: 'the cancel ended without an outcome' });
    const confirmed = final !== null && isTerminalJobStatus(final.status);
    const outcome = { jobId, finalStatus: final?.status ?? 'unknown', alreadyTerminal, confirmed, reason, error };
    t.settled(jobId, final?.status ?? null);
    recordRemoteCancel(t, outcome);
    log.info('remote job after cancellation', outcome);
    return { ...outcome, final };
  });
}

/** What the rounds of a cancel saw: the job as last read (null if never), whether it had ended, the last error. */
interface Tried {
  final: JobSnapshot | null;
  alreadyTerminal: boolean;
  error: string | null;
}

/**
 * Asks the service to cancel the job, then watches it until it is terminal, within `cancelTimeoutMs`. A call that
 * fails is tried again (calls retry through blips, and one that fails for good, a garbled or broken answer, is tried
 * again too) until the job is seen terminal, the budget is spent, or `stopped` (the job was seen terminal otherwise).
 */
async function cancelRounds(t: Tracker, opts: JobOptions, jobId: string, stopped: () => boolean): Promise<Tried> {
  let final: JobSnapshot | null = null;
  let alreadyTerminal = false;
  const deadline = Date.now() + opts.cancelTimeoutMs;
  // Stopped, the call in flight is cancelled and its end awaited, so the history shows it ended (retries between
  // attempts end at once; an attempt hears of it at its next heartbeat). The watch is not: it sees the end itself.
  const { cancelJob } = ourActivities({
    ...callsWithin(Math.max(opts.cancelTimeoutMs, 60_000)),
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  for (let round = 1; ; round++) {
    try {
      const res = await cancelJob({ profile: opts.profile, jobId });
      final = res.job;
      if (round === 1) alreadyTerminal = res.alreadyTerminal;
      if (!isTerminalJobStatus(final.status)) {
        const left = Math.max(deadline - Date.now(), 1_000);
        const watch = heartbeatWait(t, left, opts.heartbeatTimeoutMs);
        final = (
          await CancellationScope.nonCancellable(() =>
            watch({
              profile: opts.profile,
              jobId,
              pollIntervalMs: Math.min(opts.pollIntervalMs, 2_000),
              maxPollIntervalMs: Math.min(opts.maxPollIntervalMs, 5_000),
              // The outcome is recorded when the cancel is confirmed: no report while it is under way.
              statusReports: 0,
            }),
          )
        ).job;
      }
      return { final, alreadyTerminal, error: null };
    } catch (err) {
      if (stopped()) throw err;
      const error = rootMessage(err);
      const left = deadline - Date.now();
      log.warn('the remote job is not confirmed canceled yet', { jobId, error, round });
      // Credentials the service refused for good (the activity already tried a fresh token): asking again for
      // cancelTimeoutMs cannot succeed, and keeps the workflow from saying the job was left running.
      if (left < 1_000 || rootType(err) === 'AuthenticationFailed') return { final, alreadyTerminal, error };
      await sleep(Math.min(left, 500 * 2 ** Math.min(round, 6)));
    }
  }
}

/** Records how a cancel (or an order's stop) went: in progress and in the memo, where it outlives the run. */
export function recordRemoteCancel(t: Tracker, outcome: RemoteCancel): void {
  t.progress.remoteCancel = outcome;
  t.touch();
  upsertMemo({ remoteCancel: outcome });
}

/** The jobs of this workflow never seen terminal, whatever ended their waits: each may still be running. */
export function leftRunning(t: Tracker): { role: string; jobId: string; lastStatus: string | null }[] {
  return t.progress.jobs
    .filter((j) => j.status === null || !isTerminalJobStatus(j.status))
    .map((j) => ({ role: j.role, jobId: j.jobId, lastStatus: j.status }));
}

/**
 * The failure of a workflow that was cancelled, or failed for `cause`, while a job ran, when that job's cancel could
 * not be confirmed: it names every job of the workflow that may still be running (`details[0].leftRunning`), so an
 * operator knows what to stop by hand. A failure keeps what ended the wait as its cause.
 */
export function unconfirmedCancel(t: Tracker, outcome: RemoteCancel, cause?: unknown): ApplicationFailure {
  const jobs = leftRunning(t);
  if (!jobs.some((j) => j.jobId === outcome.jobId))
    jobs.push({ role: 'job', jobId: outcome.jobId, lastStatus: outcome.finalStatus });
  const names = jobs.map((j) => `${j.role} job ${j.jobId} (last seen ${j.lastStatus ?? 'unknown'})`).join(', ');
  const why = cause === undefined ? 'the workflow was cancelled' : `the workflow failed (${rootMessage(cause)})`;
  return ApplicationFailure.create({
    type: 'RemoteCancelUnconfirmed',
    nonRetryable: true,
    message: `${why}, but job ${outcome.jobId} could not be confirmed canceled (last status ${outcome.finalStatus}${outcome.error ? `; ${outcome.error}` : ''}); jobs that may still be running: ${names}`,
    details: [{ remoteCancel: outcome, leftRunning: jobs }],
    ...(cause === undefined ? {} : { cause: cause as Error }),
  });
}

/** The type of the application failure at the root of a failure chain, if any. */
function rootType(err: unknown): string | undefined {
  let type: string | undefined;
  for (let e: unknown = err; e instanceof Error; e = e.cause)
    if (e instanceof ApplicationFailure) type = e.type ?? type;
  return type;
}

/** The message at the root of a failure chain (ActivityFailure → ApplicationFailure → …). */
export function rootMessage(err: unknown): string {
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

/** An activity the workflow's cancel stopped from being retried (its worker died): the workflow was cancelled. */
export const cancelRequested = (err: unknown): boolean =>
  err instanceof ActivityFailure && err.retryState === 'CANCEL_REQUESTED';

/** A wait the workflow's cancel kept from being retried timed out: the workflow still ends cancelled. */
export const asCancelled = (err: unknown): unknown =>
  isCancellation(err)
    ? err
    : new CancelledFailure('the workflow was cancelled while a job ran', [], err instanceof Error ? err : undefined);

/*
 * A workflow cancel that reaches the job at once (cancellingPromptly). A job's heartbeating wait is cancelled with
 * WAIT_CANCELLATION_COMPLETED, so the workflow hears the wait's answer only once the wait hears of the cancel, at its
 * next heartbeat: seconds, during which a short job could complete, and the workflow does not end with the wait in
 * flight. Meanwhile the job is cancelled here, without waiting; the wait's ending then finds that cancel made
 * (cancelRemoteJob cancels a job once). A wait that answers with its job ended (it completed before the cancel reached
 * it) answers once that cancel has; a cancel still trying to reach the service then stops, since the wait saw the job
 * end (`seenTerminal`).
 */

/** Runs `wait`, the wait of job `jobId`; if the workflow is cancelled meanwhile, cancels the job at once. */
export async function cancellingPromptly<T extends { job: JobSnapshot }>(
  t: Tracker,
  opts: JobOptions,
  jobId: string,
  wait: () => Promise<T>,
): Promise<T> {
  let ended = false;
  CancellationScope.current()
    .cancelRequested.catch(() =>
      CancellationScope.nonCancellable(async () => {
        if (!ended) await cancelRemoteJob(t, opts, jobId, 'workflow_cancelled');
      }),
    )
    .catch(() => undefined); // its outcome is the wait's ending's to report: that ending awaits the same cancel
  try {
    const result = await wait();
    // The job ended before the wait heard of the cancel (it answers with the job ended): a cancel of it already made
    // is seen through, so the workflow neither ends with that cancel in flight nor leaves it unrecorded. The wait's
    // answer is what the cancel waits to see: one still trying to reach the service (an outage) stops at once and
    // records the job as the wait saw it, not an unconfirmed cancel after cancelTimeoutMs.
    const cancelling = cancelStarted(t, jobId);
    if (cancelling) {
      if (result.job.id === jobId) seenTerminal(t, result.job);
      await cancelling;
    }
    return result;
  } finally {
    ended = true;
  }
}

/** Whether this workflow has started cancelling job `jobId` (a wait that then saw it canceled saw our own cancel). */
export const cancelledByUs = (t: Tracker, jobId: string): boolean => cancelStarted(t, jobId) !== undefined;
