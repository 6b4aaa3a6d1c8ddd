/**
 * The inputs the job activities share (profile, job id, submission target, polling) and the job snapshot that
 * crosses into workflow history.
 */
import { z } from 'zod';
import type { Job } from '../api/index.js';
import { DEFAULT_STATUS_REPORTS } from '../contract/activity-options.js';
import type { JobSnapshot } from '../contract/types.js';

export const Profile = z.string().min(1).default('default');
export const Id = z.string().min(1);

/**
 * What a target's submitter (src/exactly-once/workflow/submitter.ts) adds to the input of the activity it sends a request with:
 * whose request it is, and what it created on the target before.
 */
export const SentFor = {
  /** The requesting activity: its workflow is the one a gone requester's write is undone for, its id the request's. */
  requester: z.object({ workflowId: z.string(), runId: z.string(), activityId: z.string() }).optional(),
  /** The submitter sending it: it names the jobs it answered earlier sends with, never this request's (recentJobsQuery). */
  submitterId: z.string().min(1).optional(),
};

/**
 * Its workflow leaves its job alone when cancelled (`cancelRemoteJob: false`) and does not wait for it: a job its send
 * created for that workflow, cancelled meanwhile, is left running, not undone. (No request is sent once its workflow
 * is cancelled or gone.)
 */
const LeaveOnCancel = z.boolean().optional();

export const SubmitInput = z.object({
  profile: Profile,
  /** Table group (profiling) or test suite (test run). */
  targetId: Id,
  /** Project of the target, for the job listing that reconciles a lost response. @default the profile's */
  projectCode: z.string().min(1).optional(),
  /** The workflow the job works for, carried in the test run's metadata. @default this workflow */
  caller: z
    .object({
      workflowId: z.string(),
      runId: z.string(),
      workflowType: z.string().nullable(),
      namespace: z.string(),
    })
    .optional(),
  /** The task queue its send runs on (its workflow's), where the submitter starts if none runs. @default this activity's */
  submitterQueue: z.string().min(1).optional(),
  leaveOnCancel: LeaveOnCancel,
  ...SentFor,
});
export type SubmitInput = z.input<typeof SubmitInput>;

export const JobInput = z.object({ profile: Profile, jobId: Id });
export type JobInput = z.input<typeof JobInput>;

/** How long a test-run summary may wait for its score to be rolled up. @default 0 */
export const AwaitScoreMs = z.number().int().min(0).max(600_000).default(0);

/** How many status changes a wait reports to its workflow (the `jobStatus` signal, 4 history events each). */
const StatusReports = {
  statusReports: z.number().int().min(0).max(20).default(DEFAULT_STATUS_REPORTS),
  /** The status the workflow already shows for the job (a found job's): not reported again. */
  seenStatus: z.string().min(1).optional(),
};

/** What a wait fetches as soon as it sees the job complete, sparing the workflow an activity for each. */
const AfterCompletion = {
  /** The summary of the job's kind. A failed fetch is not the wait's failure: the workflow then fetches it itself. */
  summary: z.enum(['profiling', 'test_run']).optional(),
  awaitScoreMs: AwaitScoreMs,
  /** The table group whose test-generation outlook to read after its profiling run (see summaries.ts). */
  generationOutlookOf: Id.optional(),
  /** The project whose jobs list the follow-up generation job (the profile's when absent). */
  projectCode: z.string().min(1).optional(),
  /** How long the wait follows that job itself, once found, before leaving it to the workflow (0: not at all). */
  followUpMs: z.number().int().min(0).max(600_000).optional(),
};

export const WaitInput = z.object({
  profile: Profile,
  jobId: Id,
  /** First poll interval. @default 5000 */
  pollIntervalMs: z.number().int().min(10).default(5_000),
  /** Longest poll interval; kept below half the heartbeat timeout. @default 30000 */
  maxPollIntervalMs: z.number().int().min(10).default(30_000),
  /** Growth of the interval per unchanged poll; reset on every status change. @default 1.5 */
  backoff: z.number().min(1).max(10).default(1.5),
  /** Return early, marked `stuck`, when the job sits in one non-terminal status longer than this. @default no bound */
  maxStatusDurationMs: z.number().int().min(1).optional(),
  ...StatusReports,
  ...AfterCompletion,
});
export type WaitInput = z.input<typeof WaitInput>;

/** One poll of the deferrable strategy. */
export const CheckInput = JobInput.extend({
  /** The time between the polls of a generation follow-up (the retry policy times the job's own). @default 1000 */
  pollIntervalMs: z.number().int().min(10).optional(),
  maxStatusDurationMs: z.number().int().min(1).optional(),
  ...StatusReports,
  ...AfterCompletion,
});
export type CheckInput = z.input<typeof CheckInput>;

export function snapshot(job: Job): JobSnapshot {
  return {
    id: job.id,
    job_key: job.job_key,
    status: job.status,
    created_at: job.created_at,
    claimed_at: job.claimed_at,
    started_at: job.started_at,
    completed_at: job.completed_at,
    error_message: job.error_message,
  };
}
