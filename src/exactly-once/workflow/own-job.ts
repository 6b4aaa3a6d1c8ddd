/**
 * What became of the job a wait that submits its own (src/exactly-once/own-job.ts), or a submission's ask of its target's
 * submitter (submission.ts), created, when it ended without an outcome: named in its failure, or looked up (a request
 * still queued is withdrawn), so that the workflow cancels it rather than leave it unwatched.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  TimeoutFailure,
  isCancellation,
} from '@temporalio/workflow';
import type { JobSubmitted } from '../../contract/index.js';
import { WITHDRAWN_UNSENT } from '../messages.js';
import type { JobOptions } from '../../contract/workflows.js';
import type { Submission } from '../../activities/job-inputs.js';
import { activitiesWithin } from '../../workflows/shared.js';

/**
 * The wait (or ask) ended without an answer: it timed out (its attempt's worker died, and the workflow's cancel or its
 * deadline let no other attempt run), or was cancelled while no attempt ran.
 */
export function unanswered(err: unknown): err is ActivityFailure {
  if (!(err instanceof ActivityFailure)) return false;
  if (err.cause instanceof TimeoutFailure) return true;
  // An ask that withdrew its request says so: nothing was sent, nothing is looked up.
  return err.cause instanceof CancelledFailure && !err.cause.details.includes(WITHDRAWN_UNSENT);
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

/** The wait's own job, when its details name it (src/exactly-once/own-job.ts `naming`). */
function ownJobNamed(err: ActivityFailure): JobSubmitted | undefined {
  const details = err.cause instanceof ApplicationFailure ? (err.cause.details ?? []) : [lastHeartbeat(err)];
  for (const d of details)
    if (typeof d === 'object' && d !== null && 'submitted' in d && d.submitted) return d.submitted as JobSubmitted;
  return undefined;
}

/**
 * The job a wait that submits its own (`submit`) created, once it ended without an outcome: named in its failure;
 * else, when it timed out or was cancelled before naming one, the one the lookup finds (which also releases the lock
 * a dead attempt held). Null when it created none: it failed in its submission (as the submission's own activity
 * would), or the workflow was cancelled before it ran.
 */
export async function ownJobAfter(
  opts: Pick<JobOptions, 'profile' | 'outageToleranceMs'>,
  submit: Submission,
  err: unknown,
): Promise<JobSubmitted | null> {
  if (!(err instanceof ActivityFailure)) return null;
  const named = ownJobNamed(err);
  if (named) return named;
  if (!unanswered(err) || err.activityId === undefined) return null;
  return settledJob(opts, submit, err.activityId);
}

/**
 * The job the request of activity `activityId` (a submission's ask, or a wait that submits its own job) got, settled
 * now, whether or not that activity still runs: a request still queued is withdrawn (null: nothing was sent, and
 * nothing will be), one being sent is waited for. A workflow's cancel asks this at once, rather than wait for the
 * activity to hear of the cancel at its next heartbeat.
 */
export async function settledJob(
  opts: Pick<JobOptions, 'profile' | 'outageToleranceMs'>,
  submit: Submission,
  activityId: string,
): Promise<JobSubmitted | null> {
  const input = { profile: opts.profile, submit, activityId };
  const { job } = await CancellationScope.nonCancellable(() =>
    activitiesWithin(opts.outageToleranceMs).call.findUnansweredSubmission(input),
  );
  return job;
}

/** A wait the workflow's cancel kept from being retried timed out: the workflow still ends cancelled. */
export const asCancelled = (err: unknown): unknown =>
  isCancellation(err)
    ? err
    : new CancelledFailure('the workflow was cancelled while a job ran', [], err instanceof Error ? err : undefined);
