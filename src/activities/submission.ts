/**
 * Exactly-once job submission: a profiling run, a test run or a test-generation job is submitted once. Only a failure
 * that may have reached the service (a timeout, a reset after sending, a 5xx, a garbled answer) leads to a lookup;
 * the lookup finds only the job this submission created (see reconcile.ts), after waiting out the time a held request
 * can still commit (`submitSettleMs`), and only then may the next attempt send again. Each target's submissions go
 * through its submitter, one at a time (src/workflows/submitter.ts), so no other submission of ours competes for the
 * same job.
 */
import { activityInfo, Context } from '@temporalio/activity';
import { z } from 'zod';
import type { JobSubmitted } from '../contract/types.js';
import type { ActivityContext } from './context.js';
import { attemptDeadline } from './deadline.js';
import { SubmissionOutcomeUnknown, parseInput, translated } from './errors.js';
import { SubmitInput } from './job-inputs.js';
import { beat } from './keep-alive.js';
import type { Watermark } from './reconcile.js';
import { forSubmitter, provable, unlocked } from './unlocked.js';
import { JOB_KINDS, type JobKind } from '../contract/job-kinds.js';
import { Refused, nothingOutstanding, recordingRefusal, type Prior } from './write-once.js';
import { cancelOwnUnwatched, cancelUnwatched, undoneIfGone, sendSignal, type OwnUndo } from './requester-gone.js';
import type { Turn } from './send-in-turn.js';
import { sender, type RecordPhase } from './send-once.js';
import { answerOf, throughSubmitter } from './through-submitter.js';
import { DEFAULT_OUTAGE_TOLERANCE_MS } from '../contract/activity-options.js';
import { submitterId } from '../contract/submitter.js';
import { abortable } from '../api/abortable.js';

/**
 * The longest a submission may take: a submission activity's start-to-close, and the bound a wait that submits its
 * own job puts on that submission (own-job.ts).
 */
export const SUBMISSION_BOUND_MS = 30 * 60_000;

/** How long the submitter retries this submission through an outage: what this activity's own retries would. */
const outageToleranceOf = (): number => activityInfo().scheduleToCloseTimeoutMs || DEFAULT_OUTAGE_TOLERANCE_MS;

/** Kept back from an attempt's end for the send that may follow a lookup. */
const SEND_ROOM_MS = 60_000;

/** Until when this attempt may look for a lost answer: its deadline (or `bound`, if sooner), less the send's room. */
const lookingUntil = (bound = Infinity): number => Math.min(attemptDeadline(), bound) - SEND_ROOM_MS;

/** Heartbeat details of a submission: where the previous attempt got to (write-once.ts). */
const Sending = z.object({
  phase: z.literal('sending'),
  sentAt: z.number(),
  mark: z.object({ ids: z.array(z.string()), newest: z.string().nullable() }).nullable(),
});
type Sending = z.infer<typeof Sending>;

/** The send an attempt recorded in its phase, if it got that far. */
function recordedSend(recorded: unknown): Sending | undefined {
  const phase = z.union([Sending, Refused]).safeParse(recorded).data;
  return phase?.phase === 'sending' ? phase : undefined;
}

/** When this activity's workflow started (epoch ms); outside a workflow, the longest a submission may take ago. */
async function workflowStart(signal: AbortSignal): Promise<number> {
  const own = activityInfo().workflowExecution;
  if (!own) return Date.now() - SUBMISSION_BOUND_MS;
  // Raced with the cancel: the worker's connection ignores `withAbortSignal`, so a hung call would hold the lookup.
  const d = await abortable(Context.current().client.workflow.getHandle(own.workflowId, own.runId).describe(), signal);
  return d.startTime.getTime();
}

/** A submission made by a wait of its own job (see own-job.ts), through its target's submitter (`lock`). */
export interface WaitSubmission {
  profile: string;
  targetId: string;
  projectCode?: string | undefined;
  lock: string;
  submitterQueue?: string | undefined;
}

/** Submissions, for their own activities and for the waits that submit their own job first. */
export function submitter(ctx: ActivityContext) {
  const { settle, proofFor, lookupTarget, sendOnce } = sender(ctx);

  /** Cancels a job its workflow will never hear of (see requester-gone.ts). */
  const undo = (profile: string, jobId: string, signal: AbortSignal) =>
    cancelUnwatched(ctx.profile(profile).client, jobId, signal);

  /** Cancels a job this activity created for its own workflow, gone; else its target's submitter does. */
  const undoOwn = (input: Omit<OwnUndo, 'jobId'>, toleranceMs: number, signal: AbortSignal) => (r: JobSubmitted) =>
    cancelOwnUnwatched(ctx.profile(input.profile).client, { ...input, jobId: r.jobId }, toleranceMs, signal);

  /**
   * Submits a job of kind `kind`. With a submitter named (`lock`), the target's submitter sends it (unless its
   * deployment is proven to keep our id: see Proof); without, this activity sends it, for its own workflow or, run by
   * a submitter, for the requester it names.
   */
  async function submit(kind: JobKind, raw: SubmitInput): Promise<JobSubmitted> {
    const input = parseInput(SubmitInput, raw, JOB_KINDS[kind].activity);
    // An attempt after one that certainly created nothing (refused, or failed before its send) sends at once. Any
    // other earlier attempt, or one whose heartbeat details were lost, may have: settle and look before sending.
    const recorded: unknown = activityInfo().heartbeatDetails;
    const sending = recordedSend(recorded);
    const own: Prior<Watermark | null> | undefined = nothingOutstanding(recorded)
      ? undefined
      : { mayHaveSent: true, sending };
    const earlier = input.earlierUnlocked;
    const prior: Prior<Watermark | null> =
      own ??
      (earlier ? { mayHaveSent: true, sending: earlier.sending as Sending | undefined } : { mayHaveSent: false });
    const outstanding = { value: prior.mayHaveSent };
    return translated(() =>
      recordingRefusal(outstanding, beat, async () => {
        const until = lookingUntil();
        // Through a cancel: a send in flight finishes and its lookup runs, so what it created is known and cancelled
        // by its workflow, never left running unfound (hole 4 of the explorer's issue).
        const signal = sendSignal(true);
        // Without a submitter named, this task queue's submitter of the target: every send takes its turn.
        const { taskQueue } = activityInfo();
        const lock = input.lock ?? submitterId(taskQueue, input.profile, kind, input.targetId);
        const submitterQueue = input.lock ? input.submitterQueue : taskQueue;
        const proof = await proofFor(kind, input, signal);
        if (proof && unlocked(proof)) {
          const sent = await sendOnce(kind, input, signal, prior, beat, outstanding, until, proof);
          return undoneIfGone(sent, undoOwn({ ...input, lock }, outageToleranceOf(), signal));
        }
        return throughSubmitter<JobSubmitted>(
          { id: lock, taskQueue: submitterQueue },
          JOB_KINDS[kind].activity,
          forSubmitter(kind, input, sending, own !== undefined),
          outageToleranceOf(),
          Context.current().cancellationSignal,
        );
      }),
    );
  }

  /**
   * Sends a job for the requester `raw` names, in its turn at the target's submitter (send-in-turn.ts): from what the
   * batch's earlier attempts left of it (`turn.prior`), else from what a test run's requester may have sent by itself
   * (`earlierUnlocked`). What it creates for a workflow that is gone is undone.
   */
  async function sendFor(kind: JobKind, raw: unknown, turn: Turn): Promise<JobSubmitted> {
    const input = parseInput(SubmitInput, raw, JOB_KINDS[kind].activity);
    const earlier = input.earlierUnlocked;
    const prior = (
      turn.prior.mayHaveSent || !earlier ? turn.prior : { mayHaveSent: true, sending: earlier.sending }
    ) as Prior<Watermark | null>;
    const outstanding = { value: prior.mayHaveSent };
    return translated(() =>
      recordingRefusal(outstanding, turn.record, async () => {
        const signal = sendSignal();
        const told = { echoes: false, earlierUnlocked: earlier !== undefined, since: earlier?.since };
        const sent = await sendOnce(kind, input, signal, prior, turn.record, outstanding, lookingUntil(), told);
        return undoneIfGone(sent, (r) => undo(input.profile, r.jobId, signal), input.requester);
      }),
    );
  }

  /**
   * Submits from inside a wait, the job it then follows (own-job.ts), through the target's submitter, under the
   * wait's activity id: a retry of the wait gets the same job. A test run proven to keep our id is sent by the wait
   * itself, with its phase where `record` puts it (the wait's heartbeat details, read back as `recorded`). The
   * workflow's cancel withdraws a request still waiting its turn, and lets one being sent finish: the workflow then
   * cancels the job.
   */
  async function submitWithin(
    kind: JobKind,
    input: WaitSubmission,
    recorded: unknown,
    record: RecordPhase,
  ): Promise<JobSubmitted> {
    const sending = recordedSend(recorded);
    const certain = nothingOutstanding(recorded);
    const signal = AbortSignal.any([sendSignal(true), AbortSignal.timeout(SUBMISSION_BOUND_MS - 60_000)]);
    const until = lookingUntil(Date.now() + SUBMISSION_BOUND_MS - 60_000);
    const outstanding = { value: !certain };
    return recordingRefusal(outstanding, record, async () => {
      const proof = await proofFor(kind, input, signal);
      if (proof && unlocked(proof)) {
        const sent = await sendOnce(kind, input, signal, { mayHaveSent: false }, record, outstanding, until, proof);
        return undoneIfGone(sent, undoOwn(input, SUBMISSION_BOUND_MS, signal));
      }
      return throughSubmitter<JobSubmitted>(
        { id: input.lock, taskQueue: input.submitterQueue },
        JOB_KINDS[kind].activity,
        forSubmitter(kind, input, certain ? undefined : sending, !certain),
        SUBMISSION_BOUND_MS,
        Context.current().cancellationSignal,
      );
    });
  }

  /**
   * The job a submission made from inside activity `activityId` created, when that activity ended unanswered and
   * will not run again (own-job.ts): the answer its target's submitter gives that request (one still queued is
   * withdrawn), else, for a test run the wait may have sent itself (proven to keep our id), the run with its id.
   * `recorded`: the wait's last phase.
   */
  async function findUnanswered(
    kind: JobKind,
    input: WaitSubmission,
    activityId: string,
    recorded: unknown,
  ): Promise<JobSubmitted | undefined> {
    const answered = await answerOf<JobSubmitted>(input.lock, activityId);
    if (answered) return { ...answered, reconciled: true };
    if (!provable(kind)) return undefined;
    const sending = recordedSend(recorded);
    const signal = Context.current().cancellationSignal;
    const { target } = lookupTarget(kind, input, activityId, signal, true);
    if (!target)
      throw new SubmissionOutcomeUnknown(
        `an unanswered submission for ${input.targetId} may have created a job, and no project code is configured to look it up`,
      );
    // Told by its id, an early bound takes nothing of another's. Without its record, from the workflow's start: before
    // any send of its waits, however late this runs (workers down for hours: hole 2).
    const since = sending?.sentAt ?? (await workflowStart(signal));
    return settle(target, sending?.sentAt ?? Date.now(), sending?.mark ?? null, lookingUntil(), since);
  }

  return { submit, submitWithin, findUnanswered, sendFor };
}

export type Submitter = ReturnType<typeof submitter>;
