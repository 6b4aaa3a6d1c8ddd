/**
 * The job submissions by kind (src/contract/job-kinds.ts): one submitting activity per kind (`submitProfilingRun`,
 * `submitTestRun`, …), what a target's submitter sends each kind's requests with (send-in-turn.ts), and the settle of
 * an ask that ended unanswered or whose workflow was cancelled (`findUnansweredSubmission`).
 */
import { log } from '@temporalio/activity';
import type { JobSubmitted } from '../contract/types.js';
import { JOB_KINDS, type JobKind, type SubmitActivityName } from '../contract/job-kinds.js';
import type { ActivityContext } from '../activities/context.js';
import { parseInput, translated } from '../activities/errors.js';
import { UnansweredInput, type SubmitInput } from '../activities/job-inputs.js';
import type { SendFor, Turn } from './send-in-turn.js';
import { submitter } from './submissions.js';

/** Submits a job of one kind once: a retry reattaches to the job a lost response created. */
type SubmitActivity = (input: SubmitInput) => Promise<JobSubmitted>;

/** One submitting activity per kind of job (src/contract/job-kinds.ts): `submitProfilingRun`, `submitTestRun`, … */
export function submissionActivities(ctx: ActivityContext) {
  const { submit, findUnanswered } = submitter(ctx);
  const kinds = Object.keys(JOB_KINDS) as JobKind[];
  const one =
    (kind: JobKind): SubmitActivity =>
    (input) =>
      submit(kind, input);
  const byKind = Object.fromEntries(kinds.map((kind) => [JOB_KINDS[kind].activity, one(kind)])) as Record<
    SubmitActivityName,
    SubmitActivity
  >;
  return {
    ...byKind,
    /**
     * The job the request of an ask created, settled now: the ask ended unanswered (its worker died, and none of its
     * attempts will run again), or its workflow was cancelled. A request still queued is withdrawn (null: nothing was
     * sent, nor will be); one being sent is waited for, so that the workflow cancels its job rather than leave it
     * running with nobody watching.
     */
    findUnansweredSubmission: async (raw: UnansweredInput): Promise<{ job: JobSubmitted | null }> => {
      const input = parseInput(UnansweredInput, raw, 'findUnansweredSubmission');
      return translated(async () => {
        const { kind, ...submit } = input.submit;
        const job = await findUnanswered(kind, { profile: input.profile, ...submit }, input.activityId);
        if (job) log.warn('an unanswered ask had submitted its job', { jobId: job.jobId, ...input.submit });
        return { job: job ?? null };
      });
    },
  };
}

/** What a target's submitter sends each kind's requests with (send-in-turn.ts), under its submit activity's name. */
export function submissionSenders(ctx: ActivityContext): Record<SubmitActivityName, SendFor> {
  const { sendFor } = submitter(ctx);
  const kinds = Object.keys(JOB_KINDS) as JobKind[];
  return Object.fromEntries(
    kinds.map((kind) => [JOB_KINDS[kind].activity, (input: unknown, turn: Turn) => sendFor(kind, input, turn)]),
  ) as Record<SubmitActivityName, SendFor>;
}
