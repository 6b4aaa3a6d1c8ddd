/**
 * One submission in flight per target: the submitting activity takes a lock whose id names the profile, the kind of
 * job and the target (src/activities/target-lock.ts), so Temporal itself refuses a second one while the first is
 * unsettled, across every worker and every workflow of the namespace. A lost answer can then only be about our own
 * job (see src/activities/reconcile.ts). While another submission holds the lock, the workflow waits and asks again.
 *
 * Workflows started before the lock moved into the activity hold it as a child workflow whose id is the lock
 * (`submitJob`, `createOrder`, internal types), and replay that way.
 */
import {
  ActivityFailure,
  CancellationScope,
  ChildWorkflowFailure,
  log,
  patched,
  sleep,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { JobSubmitted, OrderResult } from '../contract/index.js';
import { isLockHeld, type LockHeld } from '../contract/lock-held.js';
import { PATCHES, applies } from './patches.js';
import { activitiesWithin, type Tracker } from './shared.js';

export type SubmissionKind = 'profiling' | 'tests' | 'generation';

const ACTIVITY = {
  profiling: 'submitProfilingRun',
  tests: 'submitTestRun',
  generation: 'submitTestGeneration',
} as const;

export interface SubmitJobInput {
  kind: SubmissionKind;
  profile: string;
  targetId: string;
  projectCode?: string | undefined;
  outageToleranceMs: number;
  caller: { workflowId: string; runId: string; workflowType: string | null; namespace: string };
}

/**
 * The lock holder (internal workflow type): submits once. Its parent closes it with REQUEST_CANCEL, so when the
 * parent is terminated or times out while the submission is in flight, the job it created is cancelled rather than
 * left running with nobody watching.
 */
export async function submitJob(input: SubmitJobInput): Promise<JobSubmitted> {
  const acts = activitiesWithin(input.outageToleranceMs);
  const args = {
    profile: input.profile,
    targetId: input.targetId,
    projectCode: input.projectCode,
    caller: input.caller,
  };
  const submitted = await CancellationScope.nonCancellable(() => acts.submit[ACTIVITY[input.kind]](args));
  if (CancellationScope.current().consideredCancelled) {
    log.warn('the workflow that asked for this job is gone; cancelling the job', { jobId: submitted.jobId });
    await CancellationScope.nonCancellable(() =>
      acts.call.cancelJob({ profile: input.profile, jobId: submitted.jobId }),
    );
  }
  return submitted;
}

export interface CreateOrderInput {
  profile: string;
  kitchen: string;
  recipe: string;
  variation: string;
  parameters: Record<string, unknown>;
  outageToleranceMs: number;
}

/** The lock holder for an order (internal workflow type): creates it once; stops it if its parent is gone. */
export async function createOrder(input: CreateOrderInput): Promise<OrderResult> {
  const acts = activitiesWithin(input.outageToleranceMs);
  const { outageToleranceMs: _, ...args } = input;
  const created = await CancellationScope.nonCancellable(() => acts.submit.runOrder(args));
  if (CancellationScope.current().consideredCancelled) {
    log.warn('the workflow that asked for this order is gone; stopping the order', { orderId: created.orderId });
    await CancellationScope.nonCancellable(() =>
      acts.call.stopOrder({ profile: input.profile, orderId: created.orderId }),
    );
  }
  return created;
}

/** The failure the submission activity raised, as if the parent had called it (the chain callers already know). */
function unwrapped(err: unknown): unknown {
  return err instanceof ChildWorkflowFailure && err.cause instanceof ActivityFailure ? err.cause : err;
}

/**
 * Calls `attempt` until it is not told the lock is held. Waiting is cancellable (nothing was sent yet); the call
 * itself is not, so a cancel that arrives meanwhile lets it finish and its result (the job or order id) is known to be
 * cleaned up. A workflow already cancelled does not call it at all. `cancellable`: the call is an activity that
 * answers a cancel with what it created (a wait that submits its own job), so it is cancelled with the workflow.
 * `outer`: the workflow's scope when the caller runs this in a non-cancellable one (runJob): its cancel still ends
 * the waiting (patch `cancellableLockWait`, checked only when that cancel comes while the lock is held).
 */
export async function untilLockTaken<T>(
  t: Tracker,
  what: string,
  attempt: () => Promise<T | LockHeld>,
  cancellable = false,
  outer?: CancellationScope,
): Promise<T> {
  for (let waitMs = 500; ; waitMs = Math.min(waitMs * 2, 10_000)) {
    // Cancelled before anything was sent: end cancelled, and send nothing.
    if (CancellationScope.current().consideredCancelled) await CancellationScope.current().cancelRequested;
    if (outer?.consideredCancelled && patched(PATCHES.cancellableLockWait)) await outer.cancelRequested;
    const answer = await (cancellable ? attempt() : CancellationScope.nonCancellable(attempt));
    if (!isLockHeld(answer)) return answer;
    t.stage(`waiting for another ${what} to settle`);
    log.info('waiting for the lock', { heldBy: answer.lockHeldBy });
    await sleepUnless(answer.retryAfterMs ?? waitMs, outer);
  }
}

/** Sleeps `ms`, or until `outer` is cancelled, where the workflow takes that path (see untilLockTaken). */
async function sleepUnless(ms: number, outer: CancellationScope | undefined): Promise<void> {
  const slept = sleep(ms);
  if (!outer) return slept;
  const cancelled = outer.cancelRequested.then(
    () => false,
    () => true,
  );
  if ((await Promise.race([slept.then(() => false), cancelled])) && patched(PATCHES.cancellableLockWait)) return;
  await slept;
}

/**
 * Workflows from before the lock moved into the activity: the lock is the lock-holder workflow `holder`, run as a
 * child whose id is `lockId`; a child of that id already running means the lock is held.
 */
function childLock<I, T>(lockId: string, holder: (input: I) => Promise<T>, input: I) {
  return async (): Promise<T | LockHeld> => {
    try {
      const child = await startChild(holder, {
        workflowId: lockId,
        args: [input],
        parentClosePolicy: 'REQUEST_CANCEL',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      });
      return await child.result();
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw unwrapped(err);
      return { lockHeldBy: lockId };
    }
  };
}

/** The per-target lock of a submission: one in flight per profile, kind of job and target. */
export const submissionLockId = (kind: SubmissionKind, profile: string, targetId: string): string =>
  `dataops-submit/${profile}/${kind}/${targetId}`;

/** A submission a wait makes itself (src/activities/chained.ts): the job's kind and target, and its lock. */
export const waitSubmission = (
  kind: SubmissionKind,
  opts: { profile: string; projectCode?: string | undefined },
  targetId: string,
) => ({
  kind,
  targetId,
  ...(opts.projectCode ? { projectCode: opts.projectCode } : {}),
  lock: submissionLockId(kind, opts.profile, targetId),
});

/** Submits a job under the per-target lock. */
export async function submitUnderLock(
  t: Tracker,
  kind: SubmissionKind,
  opts: { profile: string; projectCode?: string | undefined; outageToleranceMs: number },
  targetId: string,
  outer?: CancellationScope,
): Promise<JobSubmitted> {
  const args = { profile: opts.profile, targetId, projectCode: opts.projectCode };
  // Workflows started before the lock submit directly.
  const submit = activitiesWithin(opts.outageToleranceMs).submit[ACTIVITY[kind]];
  if (!applies('submissionLock')) return CancellationScope.nonCancellable(() => submit(args));
  const lockId = submissionLockId(kind, opts.profile, targetId);
  const what = `submission to ${targetId}`;
  if (applies('lockInActivity')) return untilLockTaken(t, what, () => submit({ ...args, lock: lockId }), false, outer);
  const info = workflowInfo();
  const input: SubmitJobInput = {
    kind,
    ...opts,
    targetId,
    caller: {
      workflowId: info.workflowId,
      runId: info.runId,
      workflowType: info.workflowType,
      namespace: info.namespace,
    },
  };
  return untilLockTaken(t, what, childLock(lockId, submitJob, input));
}

/** Creates an order under the lock of its kitchen, recipe and variation. */
export async function createOrderUnderLock(t: Tracker, input: CreateOrderInput): Promise<OrderResult> {
  const { outageToleranceMs: _, ...args } = input;
  const runOrder = activitiesWithin(input.outageToleranceMs).submit.runOrder;
  if (!applies('submissionLock')) return CancellationScope.nonCancellable(() => runOrder(args));
  const lockId = `dataops-order/${input.profile}/${input.kitchen}/${input.recipe}/${input.variation}`;
  const what = `order of ${input.recipe}/${input.variation}`;
  if (applies('lockInActivity')) return untilLockTaken(t, what, () => runOrder({ ...args, lock: lockId }));
  return untilLockTaken(t, what, childLock(lockId, createOrder, input));
}
