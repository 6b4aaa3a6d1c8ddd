/**
 * A heartbeating wait that submits its own job first (`submitAndWaitForJob`), when the workflow hears of a job from
 * its wait's status reports: the workflow then needs no submission activity and no workflow task for it (6 history
 * events). The submission is the same as its own activity's (submission.ts, through its target's submitter). A failure fails the wait as it would have failed the submission; a retryable
 * one is retried with the wait, which then finds the job it may have created, as a submission's retry does. The
 * workflow's cancel lets a submission in flight finish: the workflow waits for the answer and cancels the job.
 */
import { CancelledFailure, Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { JobSubmitted, WaitProgress } from '../contract/types.js';
import type { ActivityContext } from '../activities/context.js';
import { parseInput, toFailure, translated } from '../activities/errors.js';
import { UnansweredInput, type Submission } from '../activities/job-inputs.js';
import { beat } from '../activities/heartbeats.js';
import { submitter, type Submitter } from './submissions.js';

/**
 * The wait's own job: the one an earlier attempt recorded having submitted, else submitted now through the target's
 * submitter, as its own activity would submit it (an earlier attempt's request is answered again, not sent
 * again). A wait cancelled before it submits sends nothing: the workflow looks up what an earlier attempt may have.
 */
export async function ownJob(
  submissions: Submitter,
  profile: string,
  submit: Submission,
  progress: WaitProgress,
): Promise<JobSubmitted> {
  if (progress.submitted) return progress.submitted;
  if (Context.current().cancellationSignal.aborted)
    throw new CancelledFailure(`cancelled before this attempt submitted its ${submit.kind} job`);
  // Recorded before the target's submitter is asked: the wait's next heartbeat, the one that may carry the workflow's
  // cancel, then waits for the throttle, and the wait's first report names the job before it hears of a cancel.
  beat(progress);
  const job = await submissions.submitWithin(submit.kind, { profile, ...submit });
  Object.assign(progress, { submitted: job, submittedAt: Date.now() });
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

export function ownJobActivities(ctx: ActivityContext) {
  const submissions = submitter(ctx);
  return {
    /**
     * A wait that may have submitted its own job ended without naming it (it timed out, or was cancelled between
     * attempts: a worker died mid-submission), and none of its attempts will run again: finds the job it created, so
     * that the workflow cancels it rather than leave it running with nobody watching. Null: it created none.
     */
    findUnansweredSubmission: async (raw: UnansweredInput): Promise<{ job: JobSubmitted | null }> => {
      const input = parseInput(UnansweredInput, raw, 'findUnansweredSubmission');
      return translated(async () => {
        const job = await submissions.findUnanswered(
          input.submit.kind,
          { profile: input.profile, ...input.submit },
          input.activityId,
        );
        if (job) log.warn('an unanswered wait had submitted its job', { jobId: job.jobId, ...input.submit });
        return { job: job ?? null };
      });
    },
  };
}
