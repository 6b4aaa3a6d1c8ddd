/**
 * The pipeline's test run submitted by the profiling wait itself (src/activities/chained.ts): what the workflow asks
 * of the wait, and what becomes of the run when the workflow cannot follow it.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  TimeoutFailure,
  isCancellation,
  log,
} from '@temporalio/workflow';
import type { JobSubmitted } from '../contract/index.js';
import type { JobOptions } from '../contract/workflows.js';
import type { Submission } from '../activities/job-inputs.js';
import type { AfterCompletion } from './follow.js';
import { cancelRemoteJob, unconfirmedCancel } from './remote-cancel.js';
import { waitSubmission } from './submission.js';
import { activitiesWithin, type Tracker } from './shared.js';
import { NAME_PREFIX } from '../contract/names.js';

type TestGeneration = 'auto' | 'wait' | 'generate' | 'skip';

/**
 * What the profiling wait may submit as it sees the run complete: the test run, when nothing the workflow does in
 * between needs an activity (no generation to start; a follow-up, if looked for, gone or finished). Undefined: the
 * workflow submits.
 */
export function testRunAfterProfiling(
  opts: JobOptions,
  testGeneration: TestGeneration,
  testSuiteId: string,
): AfterCompletion['then'] {
  if (testGeneration === 'generate') return undefined;
  const generation = ({ skip: 'not-looked-for', auto: 'absent-or-completed', wait: 'completed' } as const)[
    testGeneration
  ];
  return { ...waitSubmission('tests', opts, testSuiteId), generation };
}

/**
 * The wait submitted a job the workflow will not follow (it failed, or was cancelled, before reaching it): cancel
 * it rather than leave it running with nobody watching. A cancelled workflow whose cancel of it is not confirmed
 * fails RemoteCancelUnconfirmed instead of ending cancelled.
 */
export async function dropUnfollowed(t: Tracker, opts: JobOptions, job: JobSubmitted, err: unknown): Promise<void> {
  if (!opts.cancelRemoteJob) return;
  const cancelled = isCancellation(err) || cancelRequested(err);
  t.addJob('test_run', job.jobId, job.reconciled, null, false);
  const { final: _, ...outcome } = await cancelRemoteJob(
    t,
    opts,
    job.jobId,
    cancelled ? 'workflow_cancelled' : 'workflow_failed',
  );
  if (cancelled && !outcome.confirmed) throw unconfirmedCancel(t, outcome);
}

/**
 * A wait that may submit the next job ended without an answer: it timed out (its attempt's worker died, and the
 * workflow's cancel or the wait's deadline let no other attempt run), or was cancelled while no attempt ran.
 */
export function unanswered(err: unknown): err is ActivityFailure {
  return (
    err instanceof ActivityFailure && (err.cause instanceof TimeoutFailure || err.cause instanceof CancelledFailure)
  );
}

/** An activity the workflow's cancel stopped from being retried: the workflow was cancelled, not failed. */
export const cancelRequested = (err: unknown): boolean =>
  err instanceof ActivityFailure && err.retryState === 'CANCEL_REQUESTED';

/** The wait's last heartbeat details, as its failure carries them. */
function lastHeartbeat(err: ActivityFailure): unknown {
  if (err.cause instanceof TimeoutFailure) return err.cause.lastHeartbeatDetails;
  if (err.cause instanceof CancelledFailure) return err.cause.details[0];
  return undefined;
}

/** The wait's own job, when its details name it (src/activities/chained.ts `naming`). */
function ownJobNamed(err: ActivityFailure): JobSubmitted | undefined {
  const details = err.cause instanceof ApplicationFailure ? (err.cause.details ?? []) : [lastHeartbeat(err)];
  for (const d of details)
    if (typeof d === 'object' && d !== null && 'submitted' in d && d.submitted) return d.submitted as JobSubmitted;
  return undefined;
}

/**
 * The heartbeat details that tell what became of the next submission (`then`). A wait that submits its own job
 * records that submission's phase in the same place until the job is submitted: without it, no `then` was sent.
 */
function thenHeartbeat(err: ActivityFailure): unknown {
  const details = lastHeartbeat(err);
  if (err.activityType !== `${NAME_PREFIX}submitAndWaitForJob` || typeof details !== 'object' || details === null)
    return details;
  if ('submitted' in details && details.submitted) return details;
  const { submission: _, ...rest } = details as Record<string, unknown>;
  return rest;
}

/**
 * The job a wait that submits its own (`submit`) created, once it ended without an outcome: named in its failure;
 * else, when it timed out or was cancelled before naming one, the one the lookup finds (which also releases the lock
 * a dead attempt held). Null when it created none: it failed in its submission (as the submission's own activity
 * would), or the workflow was cancelled before it ran.
 */
export async function ownJobAfter(opts: JobOptions, submit: Submission, err: unknown): Promise<JobSubmitted | null> {
  if (!(err instanceof ActivityFailure)) return null;
  const named = ownJobNamed(err);
  if (named) return named;
  if (!unanswered(err) || err.activityId === undefined) return null;
  const input = { profile: opts.profile, then: submit, activityId: err.activityId, heartbeat: lastHeartbeat(err) };
  const { job } = await CancellationScope.nonCancellable(() =>
    activitiesWithin(opts.outageToleranceMs).submit.findUnansweredSubmission(input),
  );
  return job;
}

/** Whether the workflow looks for what an unanswered wait (see `unanswered`) may have submitted. */
export const findsUnanswered = (then: AfterCompletion['then'], err: unknown): boolean =>
  then !== undefined && unanswered(err);

/**
 * When the wait that may have submitted `then` ended unanswered (`err`, from `findsUnanswered`), the job its last
 * attempt may have submitted is found (src/activities/chained.ts), which also releases the lock that attempt held, and
 * cancelled as one the workflow will not follow. A cancelled workflow whose cancel of it is not confirmed fails
 * RemoteCancelUnconfirmed. With `cancelRemoteJob: false` the job is left running, and recorded in the workflow's
 * progress so that whoever opted out can find it. Returns whether the lookup ran.
 */
export async function dropUnanswered(
  t: Tracker,
  opts: JobOptions,
  then: AfterCompletion['then'],
  err: ActivityFailure | undefined,
): Promise<boolean> {
  if (!then || err?.activityId === undefined) return false;
  const input = { profile: opts.profile, then, activityId: err.activityId, heartbeat: thenHeartbeat(err) };
  const submit = activitiesWithin(opts.outageToleranceMs).submit;
  const { job } = await CancellationScope.nonCancellable(() => submit.findUnansweredSubmission(input));
  if (!job) return true;
  if (opts.cancelRemoteJob) await dropUnfollowed(t, opts, job, err);
  else {
    t.addJob('test_run', job.jobId, job.reconciled, null, false);
    log.warn('a job the workflow will not follow was left running (cancelRemoteJob is false)', { jobId: job.jobId });
  }
  return true;
}

/** A wait the workflow's cancel kept from being retried timed out: the workflow still ends cancelled. */
export const asCancelled = (err: unknown): unknown =>
  isCancellation(err)
    ? err
    : new CancelledFailure('the workflow was cancelled while a job ran', [], err instanceof Error ? err : undefined);
