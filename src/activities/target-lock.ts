/**
 * The per-target lock, held by the submitting activity itself: one submission (or order creation) in flight per
 * target, across every worker and workflow of the namespace, so a lost answer can only be about our own job (see
 * reconcile.ts). The lock is a workflow execution whose id names the target (`dataops-submit/<profile>/<kind>/<target>`,
 * `dataops-order/…`), started with a start delay as long as the lock may live and `workflowIdConflictPolicy: FAIL`:
 * Temporal refuses a second holder. It never runs while held: released by terminate (2 history events, no task), it
 * expires on its own when nobody releases it. Its memo names its owner, the activity attempt chain that took it.
 *
 * A held lock is answered with `{ lockHeldBy }`; the workflow waits (cancellably: nothing was sent) and asks again.
 * A lock whose owner no longer holds it (its activity ended, or its workflow closed long enough ago) is taken over.
 */
import { activityInfo, CancelledFailure, Context, log } from '@temporalio/activity';
import type { WorkflowExecutionDescription } from '@temporalio/client';
import {
  ApplicationFailure,
  defaultPayloadConverter,
  type Payload,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/common';
import { toFailure } from './errors.js';
import { LOCK_WORKFLOW_TYPE, outcomeOf, releasedBefore, same, type Owner } from './lock-records.js';
import type { LockHeld } from '../contract/lock-held.js';

export type { Locked } from '../contract/lock-held.js';
export { LOCK_WORKFLOW_TYPE, createdByEarlierHolders } from './lock-records.js';

/**
 * The longest a submission may take: a submission activity's start-to-close, and the bound a wait that submits its
 * own job puts on that submission (own-job.ts). It is how long after its owner's workflow closed a lock may still
 * cover an attempt that had not heard of it (whichever activity the owner, or the waiter, is).
 */
export const SUBMISSION_BOUND_MS = 30 * 60_000;
const closedOwnerGraceMs = (): number => SUBMISSION_BOUND_MS;

function me(): Owner {
  const info = activityInfo();
  return {
    workflowId: info.workflowExecution?.workflowId ?? '-',
    runId: info.workflowExecution?.runId ?? '-',
    activityId: info.activityId,
  };
}

const named = (o: unknown): string =>
  typeof o === 'object' && o !== null ? `workflow ${(o as Owner).workflowId}` : 'an unknown owner';

/** The lock's time to live: what is left of the activity's schedule-to-close, one more attempt, and a minute. */
function ttlMs(): number {
  const info = activityInfo();
  const left = info.scheduleToCloseTimeoutMs
    ? info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs - Date.now()
    : 24 * 3_600_000;
  return Math.max(left, 0) + closedOwnerGraceMs() + 60_000;
}

/** A workflow run's description, or undefined when there is no such run (any more). */
async function described(workflowId: string, runId?: string): Promise<WorkflowExecutionDescription | undefined> {
  try {
    return await Context.current().client.workflow.getHandle(workflowId, runId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** The gRPC status of a terminate whose lock run is gone already (expired, taken over). */
const GRPC_NOT_FOUND = 5;

/** How long a held lock is worth waiting before asking again, when that is known to be long. */
const RECHECK_CLOSED_OWNER_MS = 2 * 60_000;

/**
 * Whether the owner named in a lock's memo still holds it: false, or the holder's answer (with how long to wait
 * before asking again, when its owner's workflow is closed and the lock waits out its grace).
 */
async function holder(owner: unknown): Promise<LockHeld | false> {
  if (typeof owner !== 'object' || owner === null) return { lockHeldBy: named(owner) }; // not ours: let it expire
  const { workflowId, runId, activityId } = owner as Owner;
  const d = await described(workflowId, runId);
  if (!d) return false;
  if (d.status.name === 'RUNNING') {
    const pending = (d.raw.pendingActivities ?? []).find((a) => a.activityId === activityId);
    return pending !== undefined && !freed(owner as Owner, pending.heartbeatDetails) && { lockHeldBy: named(owner) };
  }
  // Our workflows close by themselves only once their submission answered. One that was terminated or timed out
  // may have left an attempt running on a worker that has not heard yet: it holds the lock a while longer.
  if (d.status.name !== 'TERMINATED' && d.status.name !== 'TIMED_OUT') return false;
  const left = (d.closeTime?.getTime() ?? 0) + closedOwnerGraceMs() - Date.now();
  if (left <= 0) return false;
  return {
    lockHeldBy: `${named(owner)} (${d.status.name.toLowerCase().replace('_', ' ')}; its last attempt may still be sending)`,
    retryAfterMs: Math.min(left, RECHECK_CLOSED_OWNER_MS),
  };
}

/** Whether a pending owner's heartbeat details say it is past what its lock covers (see Owner.freedBy). */
function freed(owner: Owner, details: { payloads?: Payload[] | null } | null | undefined): boolean {
  const payload = details?.payloads?.[0];
  if (owner.freedBy !== 'submitted' || !payload) return false;
  const progress = defaultPayloadConverter.fromPayload<unknown>(payload);
  return typeof progress === 'object' && progress !== null && 'submitted' in progress;
}

/** A lock taken: `kept` when an earlier attempt of this activity took it (and may have sent before it ended). */
type Taken = { runId: string; kept: boolean } | LockHeld;

/** Takes the lock, or names its holder. A retried attempt finds the lock it took before and keeps it. */
async function take(lockId: string, owner: Owner): Promise<Taken> {
  const client = Context.current().client;
  for (let tries = 0; tries < 3; tries++) {
    try {
      const ttl = ttlMs();
      const h = await client.workflow.start(LOCK_WORKFLOW_TYPE, {
        workflowId: lockId,
        taskQueue: activityInfo().taskQueue,
        startDelay: ttl,
        workflowExecutionTimeout: ttl + 10 * 60_000,
        workflowIdConflictPolicy: 'FAIL',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        memo: { owner },
        args: [{ expiresAtMs: Date.now() + ttl }],
      });
      return { runId: h.firstExecutionRunId, kept: false };
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    const lock = await described(lockId);
    if (!lock || lock.status.name !== 'RUNNING') continue; // released meanwhile
    // A lock held by a 0.x workflow still draining on its version (the child locks submitJob and createOrder, or its
    // targetLock) ends with its submission, or expires: both versions take the same lock ids, so they never submit
    // to one target at once.
    if (lock.type !== LOCK_WORKFLOW_TYPE) return { lockHeldBy: `${lock.type} ${lockId}` };
    const lockOwner = lock.memo?.['owner'];
    if (same(lockOwner, owner)) return { runId: lock.runId, kept: true };
    const held = await holder(lockOwner);
    if (held) return held;
    log.warn('taking over a lock its owner no longer holds', { lockId, owner: lockOwner });
    await release(lockId, lock.runId, `taken over: ${named(lockOwner)} no longer holds it`);
  }
  return { lockHeldBy: 'submissions that keep taking it' };
}

/**
 * Releases a lock run (never a newer holder's), recording the outcome in its termination. Tried three times; then
 * left: a waiter takes it over once its owner no longer holds it (see holder), or it expires.
 */
async function release(lockId: string, runId: string, reason: string, outcome?: unknown): Promise<void> {
  const client = Context.current().client;
  for (let tries = 1; ; tries++) {
    try {
      await client.workflowService.terminateWorkflowExecution({
        namespace: client.options.namespace,
        workflowExecution: { workflowId: lockId, runId },
        reason,
        ...(outcome === undefined ? {} : { details: { payloads: [defaultPayloadConverter.toPayload({ outcome })] } }),
      });
      return;
    } catch (err) {
      if ((err as { code?: unknown }).code === GRPC_NOT_FOUND || tries >= 3) {
        log.warn('could not release the lock', { lockId, error: (err as Error).message });
        return;
      }
      await new Promise((r) => setTimeout(r, 250 * 4 ** tries));
    }
  }
}

/** Whether this activity's workflow is gone (terminated, timed out): nobody will hear of what it created. */
async function workflowGone(owner: Owner): Promise<boolean> {
  return (await described(owner.workflowId, owner.runId))?.status.name !== 'RUNNING';
}

/**
 * Runs `body` (the submission) under the lock `lockId`. Once it has a result, an activity whose workflow is gone
 * undoes it with `undo` (cancels the job, stops the order) and fails. The lock is released with the outcome, or when
 * the body fails for good; a retryable failure keeps it for the next attempt.
 */
export async function underTargetLock<T extends { reconciled: boolean }>(
  lockId: string,
  body: (lock: { kept: boolean }) => Promise<T>,
  undo: (result: T) => Promise<void>,
  freedBy?: Owner['freedBy'],
): Promise<T | LockHeld> {
  const owner: Owner = { ...me(), ...(freedBy ? { freedBy } : {}) };
  if (activityInfo().attempt > 1) {
    // Visibility that cannot answer fails the attempt (retried): read as "nothing released", an attempt whose send
    // went unrecorded (its worker died before the heartbeat) would send again.
    const earlier = (await releasedBefore(lockId, owner)) as T | undefined;
    if (earlier !== undefined) {
      log.warn('an earlier attempt released its lock with this outcome; its answer was lost', { lockId });
      return { ...earlier, reconciled: true };
    }
  }
  const taken = await take(lockId, owner);
  if ('lockHeldBy' in taken) return taken;
  let result: T;
  try {
    result = await body({ kept: taken.kept });
  } catch (err) {
    const failure = toFailure(err);
    if (failure instanceof ApplicationFailure && failure.nonRetryable)
      await release(lockId, taken.runId, `failed: ${failure.type ?? 'Error'}`);
    throw err;
  }
  await undoneIfWorkflowGone(result, undo, () => release(lockId, taken.runId, 'undone: its workflow is gone'));
  await release(lockId, taken.runId, 'released', result);
  return result;
}

/**
 * `result`, unless this activity's workflow is gone (terminated, timed out): nobody will hear of what it created,
 * so it is undone (the job cancelled, the order stopped), `undone` runs, and the activity fails. Every submission
 * asks, locked or not.
 */
export async function undoneIfWorkflowGone<T>(
  result: T,
  undo: (result: T) => Promise<void>,
  undone?: () => Promise<void>,
): Promise<T> {
  if (!(await workflowGone(me()))) return result;
  log.warn('the workflow that asked for this is gone; undoing it');
  await undo(result);
  await undone?.();
  throw new CancelledFailure('the workflow that asked for this submission is gone; what it created was undone');
}

/**
 * What activity `activityId` of this workflow created under the lock `lockId`, once it ended unanswered (timed out,
 * or cancelled between attempts) and no attempt of it will run again (own-job.ts): the outcome it recorded when it
 * released the lock; else, when it took the lock or says it `sent`, what `find` finds (given when the lock was
 * taken: nothing was sent before). A lock it still holds is then released, with what was found.
 */
export async function afterUnanswered<T extends { reconciled: boolean }>(
  lockId: string,
  activityId: string,
  sent: boolean,
  find: (takenAtMs: number | undefined) => Promise<T | undefined>,
): Promise<T | undefined> {
  const owner = { ...me(), activityId };
  const lock = await described(lockId);
  const ours = lock !== undefined && lock.type === LOCK_WORKFLOW_TYPE && same(lock.memo?.['owner'], owner);
  if (ours && lock.status.name === 'RUNNING') {
    const found = await find(lock.startTime.getTime());
    await release(lockId, lock.runId, `released: its holder ${activityId} went unanswered`, found);
    return found;
  }
  // Visibility that cannot answer fails this lookup (retried), rather than read as "nothing created".
  const recorded = (await (ours ? outcomeOf(lockId, lock.runId) : releasedBefore(lockId, owner))) as T | undefined;
  if (recorded !== undefined) return { ...recorded, reconciled: true };
  // A lock of its own released without an outcome (taken over, or refused) may still have covered a send.
  return sent || ours ? find(ours ? lock.startTime.getTime() : undefined) : undefined;
}

/**
 * The signal a locked submission sends and settles with: the activity's cancellation, except the one that says its
 * workflow is gone. That send still finishes, so what it created is known and undone, not left running unwatched.
 * `throughCancel`: nor the workflow's cancel (a wait that submits its own job returns it to the workflow, which
 * waits for the answer and cancels the job: see own-job.ts).
 */
export function sendSignal(throughCancel = false): AbortSignal {
  const context = Context.current();
  const controller = new AbortController();
  const abort = () => {
    const details = context.cancellationDetails;
    if (details?.notFound || (throughCancel && details?.cancelRequested)) return;
    controller.abort(context.cancellationSignal.reason);
  };
  if (context.cancellationSignal.aborted) abort();
  else context.cancellationSignal.addEventListener('abort', abort, { once: true });
  return controller.signal;
}
