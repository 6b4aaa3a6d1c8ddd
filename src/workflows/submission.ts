/**
 * One submission in flight per target: the submitting activity takes a lock whose id names the profile, the kind of
 * job and the target (src/activities/target-lock.ts), so Temporal itself refuses a second one while the first is
 * unsettled, across every worker and every workflow of the namespace. A lost answer can then only be about our own
 * job (see src/activities/reconcile.ts). While another submission holds the lock, the workflow waits and asks again.
 */
import { CancellationScope, log, sleep } from '@temporalio/workflow';
import type { JobSubmitted, OrderResult } from '../contract/index.js';
import { isLockHeld, type LockHeld } from '../contract/lock-held.js';
import { JOB_KINDS, type JobKind } from '../contract/job-kinds.js';
import { activitiesWithin, type Tracker } from './shared.js';

export interface CreateOrderInput {
  profile: string;
  kitchen: string;
  recipe: string;
  variation: string;
  parameters: Record<string, unknown>;
  outageToleranceMs: number;
}

/**
 * Calls `attempt` until it is not told the lock is held. Waiting is cancellable (nothing was sent yet); the call
 * itself is not, so a cancel that arrives meanwhile lets it finish and its result (the job or order id) is known to be
 * cleaned up. A workflow already cancelled does not call it at all. `cancellable`: the call is an activity that
 * answers a cancel with what it created (a wait that submits its own job), so it is cancelled with the workflow.
 * `outer`: the workflow's scope when the caller runs this in a non-cancellable one (runJob): its cancel still ends
 * the waiting.
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
    if (outer?.consideredCancelled) await outer.cancelRequested;
    const answer = await (cancellable ? attempt() : CancellationScope.nonCancellable(attempt));
    if (!isLockHeld(answer)) return answer;
    t.stage(`waiting for another ${what} to settle`);
    log.info('waiting for the lock', { heldBy: answer.lockHeldBy });
    await sleepUnless(answer.retryAfterMs ?? jittered(waitMs), outer);
  }
}

/**
 * A quarter to all of `ms`, at random (the workflow's seeded random: the same on replay). Waiters that found the
 * target held at the same moment ask again at different moments, so a released lock is taken by the next asker
 * instead of sitting free until their common backoff step.
 */
const jittered = (ms: number): number => Math.round(ms * (0.25 + 0.75 * Math.random()));

/** Sleeps `ms`, or until `outer` is cancelled (see untilLockTaken). */
async function sleepUnless(ms: number, outer: CancellationScope | undefined): Promise<void> {
  const slept = sleep(ms);
  if (!outer) return slept;
  const cancelled = outer.cancelRequested.then(
    () => false,
    () => true,
  );
  await Promise.race([slept, cancelled]);
}

/** The per-target lock of a submission: one in flight per profile, kind of job and target. */
export const submissionLockId = (kind: JobKind, profile: string, targetId: string): string =>
  `dataops-submit/${profile}/${kind}/${targetId}`;

/** A submission a wait makes itself (src/activities/own-job.ts): the job's kind and target, and its lock. */
export const waitSubmission = (
  kind: JobKind,
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
  kind: JobKind,
  opts: { profile: string; projectCode?: string | undefined; outageToleranceMs: number },
  targetId: string,
  outer?: CancellationScope,
): Promise<JobSubmitted> {
  const args = { profile: opts.profile, targetId, projectCode: opts.projectCode };
  const submit = activitiesWithin(opts.outageToleranceMs).submit[JOB_KINDS[kind].activity];
  const lock = submissionLockId(kind, opts.profile, targetId);
  return untilLockTaken(t, `submission to ${targetId}`, () => submit({ ...args, lock }), false, outer);
}

/** Creates an order under the lock of its kitchen, recipe and variation. */
export async function createOrderUnderLock(t: Tracker, input: CreateOrderInput): Promise<OrderResult> {
  const { outageToleranceMs: _, ...args } = input;
  const runOrder = activitiesWithin(input.outageToleranceMs).submit.runOrder;
  const lock = `dataops-order/${input.profile}/${input.kitchen}/${input.recipe}/${input.variation}`;
  return untilLockTaken(t, `order of ${input.recipe}/${input.variation}`, () => runOrder({ ...args, lock }));
}
