/**
 * The job submissions by kind (src/contract/job-kinds.ts): one submitting activity per kind (`submitProfilingRun`,
 * `submitTestRun`, …), and what a target's submitter sends each kind's requests with (send-in-turn.ts).
 */
import type { JobSubmitted } from '../contract/types.js';
import { JOB_KINDS, type JobKind, type SubmitActivityName } from '../contract/job-kinds.js';
import type { ActivityContext } from '../activities/context.js';
import type { SubmitInput } from '../activities/job-inputs.js';
import type { SendFor, Turn } from './send-in-turn.js';
import { submitter } from './submissions.js';

/** Submits a job of one kind once: a retry reattaches to the job a lost response created. */
type SubmitActivity = (input: SubmitInput) => Promise<JobSubmitted>;

/** One submitting activity per kind of job (src/contract/job-kinds.ts): `submitProfilingRun`, `submitTestRun`, … */
export function submissionActivities(ctx: ActivityContext): Record<SubmitActivityName, SubmitActivity> {
  const { submit } = submitter(ctx);
  const kinds = Object.keys(JOB_KINDS) as JobKind[];
  const one =
    (kind: JobKind): SubmitActivity =>
    (input) =>
      submit(kind, input);
  return Object.fromEntries(kinds.map((kind) => [JOB_KINDS[kind].activity, one(kind)])) as Record<
    SubmitActivityName,
    SubmitActivity
  >;
}

/** What a target's submitter sends each kind's requests with (send-in-turn.ts), under its submit activity's name. */
export function submissionSenders(ctx: ActivityContext): Record<SubmitActivityName, SendFor> {
  const { sendFor } = submitter(ctx);
  const kinds = Object.keys(JOB_KINDS) as JobKind[];
  return Object.fromEntries(
    kinds.map((kind) => [JOB_KINDS[kind].activity, (input: unknown, turn: Turn) => sendFor(kind, input, turn)]),
  ) as Record<SubmitActivityName, SendFor>;
}
