/**
 * Exactly-once job submission: a profiling run, a test run or a test-generation job is submitted once, by one
 * submitting activity per kind (`submitProfilingRun`, `submitTestRun`, …; src/contract/job-kinds.ts). Each asks its
 * target's submitter (src/exactly-once/workflow/submitter.ts), whose batch sends it in its turn (`sendFor`, by
 * send-once.ts), so no other submission of ours competes for the same job; a lost answer is looked up (reconcile.ts)
 * once a held request can no longer commit (`submitSettleMs`), and only then may a retry send again. An ask that ended
 * unanswered, or whose workflow was cancelled, is settled at its submitter (`settleAsk`, through-submitter.ts).
 */
import type { JobSubmitted } from '../contract/types.js';
import type { ActivityContext } from '../activities/context.js';
import { attemptDeadline } from '../activities/deadline.js';
import { parseInput, translated } from '../activities/errors.js';
import { SubmitInput } from '../activities/job-inputs.js';
import { sender, thisWorkflow } from './send-once.js';
import type { Watermark } from './reconcile.js';
import { JOB_KIND_NAMES, JOB_KINDS, type JobKind, type SubmitActivityName } from '../contract/job-kinds.js';
import { recordingRefusal, type Prior } from './write-once.js';
import { cancelUnwatched, undoneIfGone, sendSignal } from './requester-gone.js';
import type { Turn } from './send-in-turn.js';
import { outageToleranceOf, submitterFor, throughSubmitter, type Write } from './through-submitter.js';
import { deploymentsOf, submitterId } from './messages.js';

/** Kept back from an attempt's end for the send that may follow a lookup. */
const SEND_ROOM_MS = 60_000;

/** Until when this attempt may look for a lost answer: its deadline, less the send's room. */
const lookingUntil = (): number => attemptDeadline() - SEND_ROOM_MS;

/** Where a submission goes: the submitter of its deployment and target, on `submitterQueue` (@default this one). */
export interface SubmissionTarget {
  profile: string;
  targetId: string;
  projectCode?: string | undefined;
  submitterQueue?: string | undefined;
}

/**
 * What the target's submitter sends a job with: this activity's input, for its workflow (the job's links name it,
 * not the submitter).
 */
function requestFor(input: {
  profile: string;
  targetId: string;
  projectCode?: string | undefined;
  caller?: object | undefined;
  leaveOnCancel?: boolean | undefined;
}): Record<string, unknown> {
  const { profile, targetId, projectCode, leaveOnCancel } = input;
  return {
    profile,
    targetId,
    ...(projectCode ? { projectCode } : {}),
    caller: input.caller ?? thisWorkflow(),
    ...(leaveOnCancel ? { leaveOnCancel } : {}),
  };
}

/** Submissions: the asking activities, their sends in their turn, and the settle of an unanswered ask. */
export function submitter(ctx: ActivityContext) {
  const { sendOnce } = sender(ctx);

  /** Cancels a job its workflow will never hear of (see requester-gone.ts). */
  const undo = (profile: string, jobId: string, signal: AbortSignal) =>
    cancelUnwatched(ctx.profile(profile).client, jobId, signal);

  /** The submitter of `input`'s deployment and target, of jobs of kind `kind`. */
  const submitterOf = (kind: JobKind, input: SubmissionTarget) =>
    submitterFor(input, (taskQueue) => {
      const { baseUrl, apiBaseUrl } = ctx.profile(input.profile).client;
      return submitterId(taskQueue, deploymentsOf(baseUrl, apiBaseUrl).jobs, kind, input.targetId);
    });

  /** Asks `at`, a target's submitter, to send a job of kind `kind` for this activity; its cancel withdraws it. */
  const ask = (
    kind: JobKind,
    at: { id: string; taskQueue: string },
    input: Parameters<typeof requestFor>[0],
    outageToleranceMs: number,
  ): Promise<JobSubmitted> =>
    throughSubmitter<JobSubmitted>(at, JOB_KINDS[kind].activity, requestFor(input), outageToleranceMs);

  /**
   * Submits a job of kind `kind` through the submitter of its deployment and target, on its workflow's task queue
   * (submitterOf). A retry asks again under the same request, and is answered
   * again, never sent again.
   */
  async function submit(kind: JobKind, raw: SubmitInput): Promise<JobSubmitted> {
    const input = parseInput(SubmitInput, raw, JOB_KINDS[kind].activity);
    return translated(() => {
      return ask(kind, submitterOf(kind, input), input, outageToleranceOf());
    });
  }

  /**
   * Sends a job for the requester `raw` names, in its turn at the target's submitter (send-in-turn.ts), from what the
   * batch's earlier attempts left of it (`turn.prior`). What it creates for a workflow that is gone is undone.
   */
  async function sendFor(kind: JobKind, raw: unknown, turn: Turn): Promise<JobSubmitted> {
    const input = parseInput(SubmitInput, raw, JOB_KINDS[kind].activity);
    const prior = turn.prior as Prior<Watermark | null>;
    const outstanding = { value: prior.mayHaveSent };
    return translated(() =>
      recordingRefusal(outstanding, turn.record, async () => {
        const signal = sendSignal();
        const sent = await sendOnce(kind, input, signal, prior, turn.record, outstanding, lookingUntil());
        const undoIt = (r: JobSubmitted) => undo(input.profile, r.jobId, signal);
        return undoneIfGone(sent, undoIt, input.requester, input.leaveOnCancel);
      }),
    );
  }

  return { submit, submitterOf, sendFor };
}

export type Submitter = ReturnType<typeof submitter>;

/** Submits a job of one kind once: a retry reattaches to the job a lost response created. */
type SubmitActivity = (input: SubmitInput) => Promise<JobSubmitted>;

/** One submitting activity per kind of job (src/contract/job-kinds.ts): `submitProfilingRun`, `submitTestRun`, … */
export function submissionActivities(ctx: ActivityContext) {
  const { submit } = submitter(ctx);
  return byKind<SubmitActivity>((kind) => (input) => submit(kind, input));
}

/** `make(kind)` for each kind of job, under its submit activity's name. */
const byKind = <T>(make: (kind: JobKind) => T): Record<SubmitActivityName, T> =>
  Object.fromEntries(JOB_KIND_NAMES.map((kind) => [JOB_KINDS[kind].activity, make(kind)])) as Record<
    SubmitActivityName,
    T
  >;

/** Each kind's write (through-submitter.ts): how it is sent and where, under its submit activity's name. */
export function submissionWrites(ctx: ActivityContext): Record<SubmitActivityName, Write> {
  const { sendFor, submitterOf } = submitter(ctx);
  return byKind<Write>((kind) => ({
    send: (input, turn) => sendFor(kind, input, turn),
    submitterOf: (raw) => submitterOf(kind, parseInput(SubmitInput, raw, JOB_KINDS[kind].activity)),
  }));
}
