/**
 * Exactly-once job submission: a profiling run, a test run or a test-generation job is submitted once. Only a failure
 * that may have reached the service (a timeout, a reset after sending, a 5xx, a garbled answer) leads to a lookup;
 * the lookup finds only the job this submission created (see reconcile.ts), after waiting out the time a held request
 * can still commit (`submitSettleMs`), and only then may the next attempt send again. The workflow side holds a lock
 * per target (src/workflows/submission.ts), so no other submission of ours competes for the same job.
 */
import { activityInfo, Context, log } from '@temporalio/activity';
import { z } from 'zod';
import { Conflict } from '../api/index.js';
import type { JobSubmitted } from '../contract/types.js';
import type { ActivityContext } from './context.js';
import { attemptDeadline } from './deadline.js';
import { SubmissionOutcomeUnknown, parseInput, translated } from './errors.js';
import { SubmitInput } from './job-inputs.js';
import { beat } from './keep-alive.js';
import { SENDERS, linkTo } from './job-kinds.js';
import { echoProof, takeWatermark, type LookupTarget, type Watermark } from './reconcile.js';
import { provable, unlocked, unlockedBefore, type Proof, type Told } from './unlocked.js';
import { JOB_KINDS, type JobKind, type SubmitActivityName } from '../contract/job-kinds.js';
import { findLostJob } from './lost-answer.js';
import {
  Refused,
  nothingOutstanding,
  recordingRefusal,
  writeOnce,
  type Outstanding,
  type Phase,
  type Prior,
} from './write-once.js';
import {
  SUBMISSION_BOUND_MS,
  afterUnanswered,
  sendSignal,
  underTargetLock,
  undoneIfWorkflowGone,
  type Locked,
} from './target-lock.js';
import type { LockHeld } from '../contract/lock-held.js';

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

/** Where a submission records its phase: its own heartbeat details, or those of the wait it runs in. */
type RecordPhase = (phase: Phase<Watermark | null>) => void;

/** A locked submission made by a wait of its own job (see own-job.ts). */
export interface WaitSubmission {
  profile: string;
  targetId: string;
  projectCode?: string | undefined;
  lock: string;
}

/** Submissions, for their own activities and for the waits that submit their own job first. */
export function submitter(ctx: ActivityContext) {
  /** After a send that may have landed: the job it created, if any (lost-answer.ts). */
  const settle = (t: LookupTarget, sentAt: number, mark: Watermark | null, until: number, sinceMs?: number) =>
    findLostJob(t, {
      sentAt,
      mark,
      until,
      settleMs: ctx.submitSettleMs,
      fallbackSinceMs: (sinceMs ?? activityInfo().scheduledTimestampMs) - ctx.clockSkewMs,
    });

  /** Cancels a job its workflow will never hear of (see target-lock.ts). */
  async function undo(profile: string, jobId: string, signal: AbortSignal): Promise<void> {
    try {
      await ctx.profile(profile).client.jobs.cancel(jobId, { signal });
    } catch (err) {
      if (!(err instanceof Conflict))
        log.error('could not cancel a job nobody watches', { jobId, error: (err as Error).message });
    }
  }

  async function submit<I extends SubmitInput>(kind: JobKind, raw: I): Promise<Locked<I, JobSubmitted>> {
    const input = parseInput(SubmitInput, raw, JOB_KINDS[kind].activity);
    // An attempt after one that certainly created nothing (refused, or failed before its send) sends at once. Any
    // other earlier attempt, or one whose heartbeat details were lost, may have: settle and look before sending.
    const recorded: unknown = activityInfo().heartbeatDetails;
    const prior: Prior<Watermark | null> = nothingOutstanding(recorded)
      ? { mayHaveSent: false }
      : { mayHaveSent: true, sending: recordedSend(recorded) };
    const outstanding = { value: prior.mayHaveSent };
    const result = translated(() =>
      recordingRefusal(outstanding, beat, async () => {
        const { lock } = input;
        const until = lookingUntil();
        if (!lock) return sendOnce(kind, input, Context.current().cancellationSignal, prior, beat, outstanding, until);
        const signal = sendSignal();
        const undoIt = (r: JobSubmitted) => undo(input.profile, r.jobId, signal);
        const proof = await proofFor(kind, input, signal);
        if (proof && unlocked(proof))
          return undoneIfWorkflowGone(
            await sendOnce(kind, input, signal, prior, beat, outstanding, until, proof),
            undoIt,
          );
        return underTargetLock(
          lock,
          ({ kept }) => {
            const earlierUnlocked = unlockedBefore(kind, kept, prior.mayHaveSent ? prior.sending : undefined);
            const told = { echoes: proof?.echoes === true, earlierUnlocked };
            return sendOnce(kind, input, signal, prior, beat, outstanding, until, told);
          },
          undoIt,
        );
      }),
    );
    return result as Promise<Locked<I, JobSubmitted>>;
  }

  /**
   * Submits from inside a wait, the job it then follows (own-job.ts). Its phase goes where `record` puts it (the
   * wait's heartbeat details, read back as `recorded`). An earlier attempt of that activity may have sent only if it
   * took the lock (then kept, or released with its outcome, which the lock returns) or recorded a send, unless the
   * attempt just before this one recorded that it ended with nothing outstanding. The workflow's cancel does not
   * abort it: the workflow waits for the answer and cancels the job; a workflow that is gone has it undone here.
   * Bounded by one submission's time. The wait follows the job for hours: its lock is free once the wait's heartbeat
   * details name that job, even if its release failed.
   */
  async function submitWithin(
    kind: JobKind,
    input: WaitSubmission,
    recorded: unknown,
    record: RecordPhase,
  ): Promise<JobSubmitted | LockHeld> {
    const sending = recordedSend(recorded);
    const certain = nothingOutstanding(recorded);
    const signal = AbortSignal.any([sendSignal(true), AbortSignal.timeout(SUBMISSION_BOUND_MS - 60_000)]);
    const until = lookingUntil(Date.now() + SUBMISSION_BOUND_MS - 60_000);
    // Until the lock says whether an earlier attempt took it (and may have sent), only a certain refusal is clean.
    const outstanding = { value: !certain };
    return recordingRefusal(outstanding, record, async () => {
      const undoIt = (r: JobSubmitted) => undo(input.profile, r.jobId, signal);
      const proof = await proofFor(kind, input, signal);
      if (proof && unlocked(proof)) {
        const sent = await sendOnce(kind, input, signal, { mayHaveSent: false }, record, outstanding, until, proof);
        return undoneIfWorkflowGone(sent, undoIt);
      }
      return underTargetLock(
        input.lock,
        ({ kept }) => {
          // An earlier attempt may have sent if it took the lock or recorded a send, or sent a test run without the
          // lock and died before its record reached Temporal (the heartbeat throttle holds it back).
          const earlierUnlocked = unlockedBefore(kind, kept, sending);
          const earlier = kept || sending !== undefined || earlierUnlocked;
          const prior: Prior<Watermark | null> =
            !certain && earlier ? { mayHaveSent: true, sending } : { mayHaveSent: false };
          const told = { echoes: proof?.echoes === true, earlierUnlocked };
          return sendOnce(kind, input, signal, prior, record, outstanding, until, told);
        },
        undoIt,
        'submitted',
      );
    });
  }

  /** The proof a test run's submission takes before it sends (Proof); none for other kinds, or without a listing. */
  async function proofFor(
    kind: JobKind,
    input: Pick<z.output<typeof SubmitInput>, 'profile' | 'targetId' | 'projectCode' | 'lock'>,
    signal: AbortSignal,
  ): Promise<Proof | undefined> {
    if (!provable(kind)) return undefined;
    const { target } = lookupTarget(kind, input, activityInfo().activityId, signal);
    return target ? echoProof(target) : undefined;
  }

  /** Where the jobs a submission of activity `activityId` (of this workflow) may have created are looked up. */
  function lookupTarget(
    kind: JobKind,
    input: Pick<z.output<typeof SubmitInput>, 'profile' | 'targetId' | 'projectCode' | 'lock'>,
    activityId: string,
    signal: AbortSignal,
    exact?: boolean,
  ) {
    const { client, projectCode: profileProject } = ctx.profile(input.profile);
    const projectCode = input.projectCode ?? profileProject;
    const own = activityInfo().workflowExecution;
    const submissionId = `${own?.workflowId ?? '-'}/${own?.runId ?? '-'}/${activityId}`;
    const { jobKey } = JOB_KINDS[kind];
    const target: LookupTarget | undefined = projectCode
      ? { client, projectCode, kind, jobKey, targetId: input.targetId, submissionId, signal, lockId: input.lock, exact }
      : undefined;
    return { client, submissionId, target };
  }

  /**
   * The job a submission made from inside activity `activityId` created, when that activity ended unanswered and
   * will not run again (own-job.ts): the lookup its next attempt would have made. `recorded`: its last phase.
   */
  async function findUnanswered(
    kind: JobKind,
    input: WaitSubmission,
    activityId: string,
    recorded: unknown,
  ): Promise<JobSubmitted | undefined> {
    const sending = recordedSend(recorded);
    const signal = Context.current().cancellationSignal;
    const echoes = (await proofFor(kind, input, signal))?.echoes === true;
    // A test run is looked for even with no send recorded: one sent without the lock leaves no other trace, and is
    // then told by its id alone.
    return afterUnanswered(input.lock, activityId, sending !== undefined || provable(kind), async (takenAtMs) => {
      const sentUnlocked = provable(kind) && takenAtMs === undefined && sending === undefined;
      const { target } = lookupTarget(kind, input, activityId, signal, echoes || sentUnlocked);
      if (!target)
        throw new SubmissionOutcomeUnknown(
          `an unanswered submission for ${input.targetId} may have created a job, and no project code is configured to look it up`,
        );
      // Told by its id, an early bound takes nothing of another's: the whole time a submission may take.
      const unlockedSince = sentUnlocked ? Date.now() - SUBMISSION_BOUND_MS : undefined;
      const since = sending?.sentAt ?? takenAtMs ?? unlockedSince ?? activityInfo().scheduledTimestampMs;
      return settle(target, sending?.sentAt ?? Date.now(), sending?.mark ?? null, lookingUntil(), since);
    });
  }

  /** Sends the submission once (write-once.ts): an attempt after one that may have sent looks for its job first. */
  function sendOnce(
    kind: JobKind,
    input: Pick<z.output<typeof SubmitInput>, 'profile' | 'targetId' | 'projectCode' | 'caller' | 'lock'>,
    signal: AbortSignal,
    prior: Prior<Watermark | null>,
    record: RecordPhase,
    outstanding: Outstanding,
    until: number,
    told?: Told,
  ): Promise<JobSubmitted> {
    const { jobKey } = JOB_KINDS[kind];
    const send = SENDERS[kind];
    const { client, submissionId, target } = lookupTarget(kind, input, activityInfo().activityId, signal, told?.echoes);
    return writeOnce(
      {
        prior,
        mark: async () => told?.mark ?? (target ? takeWatermark(target) : null),
        send: async () => {
          const res = await send(client, input.targetId, signal, linkTo(input.caller, ctx.temporalUiUrl, submissionId));
          log.info('job submitted', { jobId: res.id, kind: jobKey, targetId: input.targetId });
          return { jobId: res.id, createdAt: res.created_at ?? null, reconciled: false };
        },
        find: async (sending, cause) => {
          if (!target)
            throw new SubmissionOutcomeUnknown(
              `the submission for ${input.targetId} may have created a job${cause instanceof Error ? ` (${cause.message})` : ''}, and no project code is configured to look it up; not submitting again`,
            );
          // An earlier attempt's send made without the lock is told by its id alone (see Told); this one's as proven.
          const by = cause === undefined && told?.earlierUnlocked ? { ...target, exact: true } : target;
          return settle(by, sending?.sentAt ?? Date.now(), sending?.mark ?? null, until);
        },
        record,
      },
      outstanding,
    );
  }

  return { submit, submitWithin, findUnanswered };
}

export type Submitter = ReturnType<typeof submitter>;

/** Submits a job of one kind once: a retry reattaches to the job a lost response created. */
type SubmitActivity = <I extends SubmitInput>(input: I) => Promise<Locked<I, JobSubmitted>>;

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
