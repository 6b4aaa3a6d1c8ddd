/**
 * Exactly-once job submission: a profiling run, a test run or a test-generation job is submitted once. Only a failure
 * that may have reached the service (a timeout, a reset after sending, a 5xx, a garbled answer) leads to a lookup;
 * the lookup finds only the job this submission created (see reconcile.ts), after waiting out the time a held request
 * can still commit (`submitSettleMs`), and only then may the next attempt send again. Every submission goes through
 * its target's submitter, one at a time (src/exactly-once/workflow/submitter.ts): the requesting activity asks it and waits for
 * the answer, its batch sends (`sendFor`), so no other submission of ours competes for the same job.
 */
import type { JobSubmitted } from '../contract/types.js';
import type { ActivityContext } from '../activities/context.js';
import { attemptDeadline } from '../activities/deadline.js';
import { parseInput, translated } from '../activities/errors.js';
import { SubmitInput } from '../activities/job-inputs.js';
import { thisWorkflow } from './job-kinds.js';
import type { Watermark } from './reconcile.js';
import { JOB_KINDS, type JobKind } from '../contract/job-kinds.js';
import { recordingRefusal, type Prior } from './write-once.js';
import { cancelUnwatched, undoneIfGone, sendSignal, unlessCancelled } from './requester-gone.js';
import type { Turn } from './send-in-turn.js';
import { sender } from './send-once.js';
import { answerOf, outageToleranceOf, submitterFor, throughSubmitter } from './through-submitter.js';
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
    if (!prior.mayHaveSent) await unlessCancelled(input.requester);
    return translated(() =>
      recordingRefusal(outstanding, turn.record, async () => {
        const signal = sendSignal();
        const sent = await sendOnce(kind, input, signal, prior, turn.record, outstanding, lookingUntil());
        const undoIt = (r: JobSubmitted) => undo(input.profile, r.jobId, signal);
        return undoneIfGone(sent, undoIt, input.requester, input.leaveOnCancel);
      }),
    );
  }

  /**
   * The job the request of ask `activityId` created, when that ask ended unanswered or its workflow was cancelled:
   * the answer its target's submitter gives that request (one still queued is withdrawn). None: nothing was sent.
   */
  async function findUnanswered(
    kind: JobKind,
    input: SubmissionTarget,
    activityId: string,
  ): Promise<JobSubmitted | undefined> {
    const answered = await answerOf<JobSubmitted>(submitterOf(kind, input).id, activityId);
    return answered ? { ...answered, reconciled: true } : undefined;
  }

  return { submit, findUnanswered, sendFor };
}

export type Submitter = ReturnType<typeof submitter>;
