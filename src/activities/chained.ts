/**
 * Submissions made by a wait, so that the workflow needs no submission activity and no workflow task for them (6
 * history events each):
 * - its own job, first (`submitAndWaitForJob`), when the workflow hears of a job from its wait's status reports;
 * - the next one, made by the wait that sees its job complete: the pipeline's test run is submitted by the profiling
 *   wait, as its summary is read there. Only when what the wait saw and read leaves the workflow nothing to do before
 *   it: the job completed, its summary was read, and the generation follow-up is as the workflow's `then` asks.
 *   Otherwise, or when another submission holds the target's lock, the wait returns without it and the workflow
 *   submits as before.
 *
 * The submission is the same as its own activity's (submission.ts, under the per-target lock), with its phase in the
 * wait's heartbeat details. A failure fails the wait as it would have failed the submission; a retryable one is
 * retried with the wait, which then finds the job it may have created, as a submission's retry does. The workflow's
 * cancel lets a submission in flight finish: the workflow waits for the answer and cancels the job.
 */
import { CancelledFailure, Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { isLockHeld, type LockHeld } from '../contract/lock-held.js';
import type { JobSubmitted, WaitProgress } from '../contract/types.js';
import type { WaitResult } from './completion.js';
import type { ActivityContext } from './context.js';
import { parseInput, toFailure, translated } from './errors.js';
import { UnansweredInput, type Submission, type Then } from './job-inputs.js';
import { beat } from './keep-alive.js';
import { submitter, type Submitter } from './submission.js';

/**
 * The wait's own job: the one an earlier attempt recorded having submitted, else submitted now under its lock, as
 * its own activity would submit it (an earlier attempt that took the lock or recorded a send is found, not sent
 * again). A wait cancelled before it submits sends nothing: the workflow looks up what an earlier attempt may have.
 */
export async function ownJob(
  submissions: Submitter,
  profile: string,
  submit: Submission,
  progress: WaitProgress,
): Promise<JobSubmitted | LockHeld> {
  if (progress.submitted) return progress.submitted;
  if (Context.current().cancellationSignal.aborted)
    throw new CancelledFailure(`cancelled before this attempt submitted its ${submit.kind} job`);
  const job = await submissions.submitWithin(
    submit.kind,
    { profile, ...submit },
    progress.submission,
    (phase) => beat({ ...progress, submission: phase }),
    true,
  );
  if (isLockHeld(job)) return job;
  Object.assign(progress, { submitted: job, submittedAt: Date.now(), submission: undefined });
  beat(progress);
  return job;
}

/**
 * How a wait that submits its own job ends when it fails: naming the job, so that the workflow cancels it rather than
 * leave it running unwatched. A cancellation carries the wait's progress (with the submission's phase, for the
 * lookup of a job not yet named); another failure gets `{ submitted }` as its last details once the job exists.
 */
export function naming(err: unknown, progress: WaitProgress): Error {
  const failure = toFailure(err);
  if (failure instanceof CancelledFailure) return new CancelledFailure(failure.message, [progress], failure);
  if (!(failure instanceof ApplicationFailure) || !progress.submitted) return failure;
  return new ApplicationFailure(
    failure.message,
    failure.type,
    failure.nonRetryable,
    [...(failure.details ?? []), { submitted: progress.submitted }],
    failure.cause,
    failure.nextRetryDelay,
    failure.category,
  );
}

/** Whether the wait's result leaves the workflow nothing to call before the next submission. */
export function mayGoOn(then: Then, result: WaitResult): boolean {
  if (result.job.status !== 'completed' || result.stuck || !result.summary) return false;
  const followUpCompleted = result.generationWait?.job.status === 'completed';
  switch (then.generation) {
    case 'not-looked-for':
      return true;
    case 'absent-or-completed':
      return result.generationOutlook?.expected === false || followUpCompleted;
    case 'completed':
      return followUpCompleted;
  }
}

/** The wait's result, with the next job when the wait may submit it and has. */
export async function goOn(
  submissions: Submitter,
  profile: string,
  then: Then | undefined,
  result: WaitResult,
  progress: WaitProgress,
): Promise<WaitResult> {
  if (!then || !mayGoOn(then, result)) return result;
  // Cancelled already: create nothing the workflow would only have to cancel.
  if (Context.current().cancellationSignal.aborted)
    throw new CancelledFailure(`cancelled as job ${result.job.id} completed; the next job was not submitted`);
  const next = await submissions.submitWithin(
    then.kind,
    { profile, targetId: then.targetId, projectCode: then.projectCode, lock: then.lock },
    progress.submission,
    (phase) => beat({ ...progress, submission: phase }),
  );
  if (isLockHeld(next)) {
    log.info('the next submission waits for its lock; the workflow makes it', { heldBy: next.lockHeldBy });
    return result;
  }
  return { ...result, next };
}

export function chainedActivities(ctx: ActivityContext) {
  const submissions = submitter(ctx);
  return {
    /**
     * A wait that may have submitted a job (its own, or the next) ended without naming it (it timed out, or was
     * cancelled between attempts: a worker died mid-submission), and none of its attempts will run again: finds the
     * job it created, so
     * that the workflow cancels it rather than leave it running with nobody watching. Null: it created none.
     */
    findUnansweredSubmission: async (raw: UnansweredInput): Promise<{ job: JobSubmitted | null }> => {
      const input = parseInput(UnansweredInput, raw, 'findUnansweredSubmission');
      return translated(async () => {
        const heartbeat = input.heartbeat as Partial<WaitProgress> | null | undefined;
        const job = await submissions.findUnanswered(
          input.then.kind,
          { profile: input.profile, ...input.then },
          input.activityId,
          typeof heartbeat === 'object' ? heartbeat?.submission : undefined,
        );
        if (job) log.warn('an unanswered wait had submitted the next job', { jobId: job.jobId, ...input.then });
        return { job: job ?? null };
      });
    },
  };
}
