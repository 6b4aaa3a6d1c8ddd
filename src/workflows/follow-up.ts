/**
 * The test-generation job TestGen queues after a table group's first completed profiling run. The profiling wait may
 * follow it to its end itself (src/activities/follow-up.ts), so a workflow that ends while that wait runs may leave a
 * follow-up it has not heard of yet. When the profiling run is seen completed at that ending, the workflow looks for
 * the follow-up and cancels it like its own job: confirmed, or not reported as cancelled.
 */
import { CancellationScope, log } from '@temporalio/workflow';
import type { JobOptions, JobSnapshot } from '../contract/index.js';
import { isTerminalJobStatus } from '../vocabulary.js';
import { cancelRemoteJob, rootMessage, type CancelReason, type RemoteCancel } from '../exactly-once/workflow/index.js';
import { activitiesWithin, type Tracker } from './shared.js';

/** What the profiling wait was told to read after completion: which table group's follow-up, in which project. */
export interface FollowUpOf {
  generationOutlookOf?: string;
  projectCode?: string;
}

/**
 * Cancels the follow-up of a profiling run that completed at `profiledAt` (undefined: not seen completed, so none can
 * follow) when one was looked for; returns the cancel's outcome, or null when there was nothing to cancel (or the
 * lookup itself failed, which is logged).
 */
export async function cancelFollowUp(
  t: Tracker,
  opts: JobOptions,
  of: FollowUpOf,
  profiledAt: string | null | undefined,
  reason: CancelReason,
): Promise<RemoteCancel | null> {
  const tableGroupId = of.generationOutlookOf;
  if (!tableGroupId || profiledAt === undefined) return null;
  return CancellationScope.nonCancellable(async () => {
    const { call } = activitiesWithin(Math.max(opts.cancelTimeoutMs, 60_000));
    let found: JobSnapshot | null;
    try {
      found = await call.findGenerationJob({
        profile: opts.profile,
        tableGroupId,
        ...(of.projectCode ? { projectCode: of.projectCode } : {}),
        after: profiledAt ?? new Date().toISOString(),
      });
    } catch (err) {
      log.warn('could not look for the generation follow-up to cancel it', { error: rootMessage(err) });
      return null;
    }
    if (!found || isTerminalJobStatus(found.status)) return null;
    if (!t.progress.jobs.some((j) => j.jobId === found.id))
      t.addJob('generation', found.id, false, found.status, false);
    const { final: _, ...outcome } = await cancelRemoteJob(t, opts, found.id, reason);
    return outcome;
  });
}
