/**
 * A workflow's writes, asked of their target's submitter (src/exactly-once/workflow/submitter.ts): a job's
 * submission, an order's creation, an apply. One in flight per target across every profile, worker and workflow of
 * the task queue, so a lost answer can only be about our own write (src/exactly-once/reconcile.ts). `askSubmitter`
 * asks; a cancel, or an ask that ended unanswered, settles the request (askingSubmitter).
 */
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  TimeoutFailure,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { JobSubmitted } from '../../contract/index.js';
import { OUTCOME_UNKNOWN, asksWithin } from '../../contract/activity-options.js';
import { JOB_KINDS, type JobKind, type SubmitActivityName } from '../../contract/job-kinds.js';
import { ourActivities } from '../../workflows/ours.js';
import type { Activities } from '../../activities/index.js';
import { WITHDRAWN_UNSENT, type APPLY_ACTIVITY } from '../messages.js';
import { activitiesWithin, type Tracker } from '../../workflows/shared.js';

/**
 * The ask ended without an answer: it timed out (its attempt's worker died, and the workflow's cancel or its deadline
 * let no other attempt run), or was cancelled while no attempt ran. One that withdrew its request says so: nothing was
 * sent, nothing is looked up.
 */
function unanswered(err: unknown): err is ActivityFailure {
  if (!(err instanceof ActivityFailure)) return false;
  if (err.cause instanceof TimeoutFailure) return true;
  return err.cause instanceof CancelledFailure && !err.cause.details.includes(WITHDRAWN_UNSENT);
}

/**
 * Runs `ask`, the activity that asks the target's submitter. A cancel (of the current scope, or of `outer` when the
 * caller runs this in a non-cancellable one) cancels the ask and, beside it, settles its request at once (`settle`):
 * a request still waiting its turn is
 * withdrawn (null: nothing was sent and nothing will be, and this ends cancelled); one being sent is answered, and its
 * result (the job or order id) returned, known to be cleaned up by the caller. A workflow already cancelled does not
 * ask at all. An ask that ended unanswered (its worker died, and the cancel or its deadline let no other attempt run)
 * left its request where it was: `settle` then withdraws it or hears its answer, so that the workflow never ends
 * while its request may still be sent.
 */
async function askingSubmitter<T>(
  ask: () => Promise<T>,
  settle: () => Promise<T | null>,
  outer?: CancellationScope,
  leaveOnCancel = false,
): Promise<T> {
  const scopes = [CancellationScope.current(), ...(outer ? [outer] : [])];
  for (const scope of scopes) if (scope.consideredCancelled) await scope.cancelRequested;
  const asking = new CancellationScope({ cancellable: true });
  const cancelled = Promise.race(scopes.map((s) => s.cancelRequested));
  let over = false;
  // The settle a cancel started: waited for however the ask ends, so that it is not left in flight.
  let settling: Promise<T | null> | undefined;
  const settleOnce = () => (settling = CancellationScope.nonCancellable(settle));
  try {
    const asked = CancellationScope.nonCancellable(() => asking.run(ask));
    // One that leaves its job (`cancelRemoteJob: false`) is neither cancelled nor settled: its workflow ends at once,
    // the request is not sent in its turn, and what a send in flight creates is left running
    // (src/exactly-once/requester-gone.ts).
    if (leaveOnCancel) return await Promise.race([asked, cancelled]);
    const settled = cancelled.catch((cancel: unknown) =>
      over ? never() : settledOnCancel(asking, settleOnce, cancel),
    );
    return await Promise.race([asked, settled]);
  } catch (err) {
    // The settle a cancel started answers for it too (a failed one is asked again).
    const found = unanswered(err) ? await (settling ? settling.catch(settleOnce) : settleOnce()) : null;
    if (found) return found;
    // A write that may have created something ends the workflow with that failure even through a cancel: it names
    // what to look at, where "cancelled" would say nothing was left behind.
    if (!mayHaveCreated(err)) for (const scope of scopes) if (scope.consideredCancelled) await scope.cancelRequested;
    throw err;
  } finally {
    over = true;
    await settling?.catch(() => undefined);
  }
}

/** What a cancel after the ask's answer waits for: nothing (it is the caller's to handle). */
const never = (): Promise<never> => new Promise<never>(() => undefined);

/**
 * On a cancel: the ask cancelled, and its request settled beside it. Withdrawn: the cancel is thrown. A settle that
 * failed (an outage past its tolerance) is asked once more when the cancelled ask ends (askingSubmitter).
 */
async function settledOnCancel<T>(asking: CancellationScope, settle: () => Promise<T | null>, cancel: unknown) {
  asking.cancel();
  const found = await settle().catch(() => undefined);
  if (found === null) throw cancel;
  return found ?? never();
}

/** A write's failure saying it may have created something it could not find (an `…OutcomeUnknown`). */
const mayHaveCreated = (err: unknown): boolean =>
  err instanceof ActivityFailure &&
  err.cause instanceof ApplicationFailure &&
  (OUTCOME_UNKNOWN as readonly string[]).includes(err.cause.type ?? '');

/**
 * The asking activities: each queues its request and is completed by the batch that sends it (asksWithin). A cancel
 * does not wait for them: askingSubmitter settles the request beside it. On the waits task queue, with the waits.
 */
const asking = (t: Pick<Tracker, 'waitsTaskQueue'>, outageToleranceMs: number, activityId: string) =>
  ourActivities({
    ...asksWithin(outageToleranceMs),
    taskQueue: t.waitsTaskQueue,
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    activityId,
  });

/**
 * An id for an activity that asks a submitter, known before it runs: the submitter knows its request by it, so a
 * cancel settles the request at once, without waiting for the activity.
 */
const askId = (): string => `ask-${uuid4()}`;

/** The activities that ask a submitter, by their own names. */
type AskingActivity = SubmitActivityName | 'runOrder' | typeof APPLY_ACTIVITY;

/** What an asking activity is given, less what askSubmitter adds; and what it answers. */
type AskInput<A extends AskingActivity> = Omit<Parameters<Activities[A]>[0], 'submitterQueue' | 'requester'>;
type AskResult<A extends AskingActivity> = Awaited<ReturnType<Activities[A]>>;

/**
 * Has its target's submitter send `request` with `activity` (the ask queues it, and the batch that sends it completes
 * the ask), on this workflow's task queue: the asking activity works out which of that queue's submitters (the
 * profile's deployment and the target). A cancel, or an ask that ended unanswered, settles the request with
 * `settleAsk` (askingSubmitter); what a settle found is given to `found`, @default as it is.
 */
export async function askSubmitter<A extends AskingActivity>(
  t: Tracker,
  activity: A,
  request: AskInput<A>,
  opts: {
    outageToleranceMs: number;
    outer?: CancellationScope;
    leaveOnCancel?: boolean;
    found?: (found: AskResult<A>) => AskResult<A>;
  },
): Promise<AskResult<A>> {
  const activityId = askId();
  const input = { ...request, submitterQueue: workflowInfo().taskQueue };
  const ask = asking(t, opts.outageToleranceMs, activityId)[activity] as (i: typeof input) => Promise<AskResult<A>>;
  const settle = activitiesWithin(opts.outageToleranceMs).call.settleAsk;
  return askingSubmitter<AskResult<A>>(
    () => ask(input),
    async (): Promise<AskResult<A> | null> => {
      const { answer } = await settle({ activity, request: input, activityId });
      if (answer === null) return null;
      return opts.found ? opts.found(answer as AskResult<A>) : (answer as AskResult<A>);
    },
    opts.outer,
    opts.leaveOnCancel,
  );
}

/** Submits a job through its target's submitter; a job a settle found is `reconciled`. */
export function submitJob(
  t: Tracker,
  kind: JobKind,
  opts: { profile: string; projectCode?: string | undefined; outageToleranceMs: number; cancelRemoteJob?: boolean },
  targetId: string,
  outer?: CancellationScope,
): Promise<JobSubmitted> {
  const leaveOnCancel = opts.cancelRemoteJob === false;
  const request = {
    profile: opts.profile,
    targetId,
    ...(opts.projectCode ? { projectCode: opts.projectCode } : {}),
    ...(leaveOnCancel ? { leaveOnCancel } : {}),
  };
  return askSubmitter(t, JOB_KINDS[kind].activity, request, {
    outageToleranceMs: opts.outageToleranceMs,
    ...(outer ? { outer } : {}),
    leaveOnCancel,
    found: (job) => ({ ...job, reconciled: true }),
  });
}
