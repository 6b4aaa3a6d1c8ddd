/**
 * What the per-target lock's runs record (target-lock.ts): their owner, in the memo, and the outcome a release wrote
 * into its termination. Read by a retry whose answer was lost after the release, and by a lookup that lost its
 * watermark (the jobs of the submissions before it on the target are never its own).
 */
import { Context } from '@temporalio/activity';
import { defaultPayloadConverter } from '@temporalio/common';

/** The lock's workflow type: it completes at once if it ever runs (its start delay passed with nobody releasing it). */
export const LOCK_WORKFLOW_TYPE = 'dataops.targetLock';
/** The same lock taken by 0.x workers, still draining on their version: its runs record owners and outcomes alike. */
const LOCK_WORKFLOW_TYPE_0X = 'targetLock';

export interface Owner {
  workflowId: string;
  runId: string;
  activityId: string;
  /**
   * `submitted`: the owner is a wait that submits its own job and then follows it for hours; the lock is free once
   * the wait's heartbeat details name the job it submitted, even if its release failed.
   */
  freedBy?: 'submitted';
}

export const same = (a: unknown, b: Owner): boolean =>
  typeof a === 'object' &&
  a !== null &&
  (a as Owner).workflowId === b.workflowId &&
  (a as Owner).runId === b.runId &&
  (a as Owner).activityId === b.activityId;

/** The outcome a lock run's release recorded (its termination's details), if any. */
export async function outcomeOf(lockId: string, runId: string): Promise<unknown> {
  const events = (await Context.current().client.workflow.getHandle(lockId, runId).fetchHistory()).events ?? [];
  const payload = events.at(-1)?.workflowExecutionTerminatedEventAttributes?.details?.payloads?.[0];
  const recorded = payload ? defaultPayloadConverter.fromPayload<{ outcome?: unknown }>(payload) : undefined;
  return recorded?.outcome;
}

/**
 * The lock runs of `lockId` in visibility (newest first, at most 20), `where` added to the query: none when the id
 * cannot be written into a query (the lookup then decides). A visibility that cannot answer throws.
 */
async function* lockRuns(
  lockId: string,
  where = '',
): AsyncGenerator<{ runId: string; memo?: Record<string, unknown> }> {
  if (/['"\\]/.test(lockId)) return;
  let seen = 0;
  for await (const run of Context.current().client.workflow.list({ query: `WorkflowId = '${lockId}'${where}` })) {
    if (++seen > 20) return;
    if (run.type === LOCK_WORKFLOW_TYPE || run.type === LOCK_WORKFLOW_TYPE_0X) yield run;
  }
}

/**
 * The outcome an earlier attempt of this activity recorded when it released its lock, when the attempt's answer
 * was then lost (a worker that died between the release and the report). Read only by retries.
 */
export async function releasedBefore(lockId: string, owner: Owner): Promise<unknown> {
  for await (const run of lockRuns(lockId)) if (same(run.memo?.['owner'], owner)) return outcomeOf(lockId, run.runId);
  return undefined;
}

/**
 * The jobs that the submissions before this one on the target created, as their lock runs closed since `sinceMs`
 * recorded them: never this submission's. Read only by a lookup that lost its watermark (lost-answer.ts).
 */
export async function createdByEarlierHolders(lockId: string, sinceMs: number): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const run of lockRuns(lockId, ` AND CloseTime > '${new Date(sinceMs).toISOString()}'`)) {
    const outcome = await outcomeOf(lockId, run.runId);
    const id = typeof outcome === 'object' && outcome !== null ? (outcome as { jobId?: unknown }).jobId : undefined;
    if (typeof id === 'string') ids.add(id);
  }
  return ids;
}
