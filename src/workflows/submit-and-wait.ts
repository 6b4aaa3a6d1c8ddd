/**
 * Running a job: submitted through its target's submitter (an activity that asks it: src/exactly-once/), then
 * followed (follow.ts), whatever the wait's strategy.
 */
import { CancellationScope, log } from '@temporalio/workflow';
import type { JobOptions, JobRun } from '../contract/index.js';
import { submitJob } from '../exactly-once/workflow/index.js';
import { followJob, type AfterCompletion, type Fetched } from './follow.js';
import type { JobKind } from '../contract/job-kinds.js';
import type { Tracker } from './shared.js';

/** Submits the job (kind `kind`, on `targetId`) once, through the target's submitter, and follows it. */
export async function runJob(
  t: Tracker,
  role: string,
  opts: JobOptions,
  kind: JobKind,
  targetId: string,
  after: AfterCompletion = {},
): Promise<{ run: JobRun; fetched: Fetched }> {
  t.stage(`submitting ${role}`);
  // Not cancellable: a cancel that arrives while it is in flight lets it finish, so the job id is known, and then the
  // job is cancelled (never left running). A cancel while it waits its turn withdraws it: nothing was sent.
  const outer = CancellationScope.current();
  const submitted = await CancellationScope.nonCancellable(() => submitJob(t, kind, opts, targetId, outer));
  log.info('job recorded', { role, jobId: submitted.jobId, reconciled: submitted.reconciled });
  return followJob(t, role, opts, submitted, after);
}
