/**
 * One submission in flight per target: every submission and order creation goes through its target's submitter
 * (src/exactly-once/workflow/submitter.ts), whose id names the task queue, the service deployment, the kind of job and the
 * target, so Temporal keeps one per target across every profile, worker and workflow of the task queue. A lost answer can then only be about our own job (see
 * src/exactly-once/reconcile.ts). The submitting activity asks it and waits for the answer.
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
import type { ImportOutcome, JobSubmitted, OrderResult } from '../../contract/index.js';
import { OUTCOME_UNKNOWN, asksWithin } from '../../contract/activity-options.js';
import { JOB_KINDS, type JobKind } from '../../contract/job-kinds.js';
import { ourActivities } from '../../workflows/ours.js';
import type { ImportInput } from '../../activities/apply.js';
import { APPLY_ACTIVITY, WITHDRAWN_UNSENT } from '../messages.js';
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
 * What the request of ask `activityId` (activity `activity`, given `request`) created, settled now, whether or not
 * that ask still runs (settleAsk): a request still queued is withdrawn (null: nothing was sent, and nothing will be),
 * one being sent is waited for. A workflow's cancel asks this at once: the ask itself, completed by the submitter's
 * batch, hears of no cancel.
 */
const settled =
  <T>(outageToleranceMs: number, activity: string, request: Record<string, unknown>, activityId: string) =>
  async (): Promise<T | null> => {
    const settle = activitiesWithin(outageToleranceMs).call.settleAsk;
    return (await settle({ activity, request, activityId })).answer as T | null;
  };

export interface CreateOrderInput {
  profile: string;
  kitchen: string;
  recipe: string;
  variation: string;
  parameters: Record<string, unknown>;
  outageToleranceMs: number;
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
export async function askingSubmitter<T>(
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

/**
 * Where a target's submitter runs: this workflow's task queue (an ask's own is the waits queue). Which submitter of
 * that queue (the deployment's and the target's) the asking activity works out: it knows the profile's deployment.
 */
const submitterQueue = (): string => workflowInfo().taskQueue;

/** Submits a job through its target's submitter. */
export async function submitUnderLock(
  t: Tracker,
  kind: JobKind,
  opts: {
    profile: string;
    projectCode?: string | undefined;
    outageToleranceMs: number;
    cancelRemoteJob?: boolean;
  },
  targetId: string,
  outer?: CancellationScope,
): Promise<JobSubmitted> {
  const leaveOnCancel = opts.cancelRemoteJob === false;
  const request = {
    profile: opts.profile,
    targetId,
    ...(opts.projectCode ? { projectCode: opts.projectCode } : {}),
    submitterQueue: submitterQueue(),
    ...(leaveOnCancel ? { leaveOnCancel } : {}),
  };
  const activityId = askId();
  const { activity } = JOB_KINDS[kind];
  const settle = settled<JobSubmitted>(opts.outageToleranceMs, activity, request, activityId);
  return askingSubmitter(
    () => asking(t, opts.outageToleranceMs, activityId)[activity](request),
    async () => {
      const job = await settle();
      return job && { ...job, reconciled: true };
    },
    outer,
    leaveOnCancel,
  );
}

/** Creates an order through the submitter of its kitchen, recipe and variation. */
export async function createOrderUnderLock(t: Tracker, input: CreateOrderInput): Promise<OrderResult> {
  const { outageToleranceMs, ...args } = input;
  const activityId = askId();
  const request = { ...args, submitterQueue: submitterQueue() };
  return askingSubmitter(
    () => asking(t, outageToleranceMs, activityId).runOrder(request),
    settled<OrderResult>(outageToleranceMs, 'runOrder', request, activityId),
  );
}

/**
 * Applies test definitions through the submitter of their suite, one apply in flight per suite. Its caller runs it
 * non-cancellable (an approved apply is made and told whatever a cancel says); an ask that ended unanswered is settled
 * as an order's is: withdrawn if still queued, else its answer heard.
 */
export async function applyUnderLock(
  t: Tracker,
  input: Omit<ImportInput, 'submitterQueue' | 'requester'> & { profile: string; outageToleranceMs: number },
): Promise<ImportOutcome> {
  const { outageToleranceMs, ...args } = input;
  const activityId = askId();
  const request = { ...args, submitterQueue: submitterQueue() };
  return askingSubmitter(
    () => asking(t, outageToleranceMs, activityId).importTestDefinitions(request),
    settled<ImportOutcome>(outageToleranceMs, APPLY_ACTIVITY, request, activityId),
  );
}
