/**
 * Running a job: submitted, then followed (follow.ts). A heartbeating wait whose reports tell the workflow of its job
 * submits the job itself (`submitAndWaitForJob`, src/exactly-once/own-job.ts): the workflow then needs no submission
 * activity and no workflow task for it. Same submission, same submitter, same exactly-once rules; the workflow learns of
 * the job from the wait's first report, its result, or its failure, and otherwise looks it up, so a job the wait
 * created is followed or cancelled, never left running unwatched.
 */
import { CancellationScope, log } from '@temporalio/workflow';
import type { WaitResult } from '../activities/completion.js';
import { DEFAULT_STATUS_REPORTS } from '../contract/activity-options.js';
import type { JobOptions, JobRun, JobSubmitted } from '../contract/index.js';
import {
  asCancelled,
  askId,
  cancellingPromptly,
  cancelRequested,
  ownJobAfter,
  settledJob,
  submitAndWait,
  submitUnderLock,
  waitSubmission,
} from '../exactly-once/workflow/index.js';
import {
  followJob,
  heartbeatInput,
  statusReportsOf,
  strategyOf,
  waitBound,
  waitEnded,
  type AfterCompletion,
  type Fetched,
} from './follow.js';
import type { JobKind } from '../contract/job-kinds.js';
import type { Tracker } from './shared.js';

/**
 * Whether the job's own wait submits it: the heartbeating strategy (a deferrable poll is a short activity of its
 * own), and live reports (without them the workflow would not know its job until the wait ends).
 */
function submitsInWait(opts: JobOptions): boolean {
  return strategyOf(opts) === 'heartbeat' && (statusReportsOf(opts) ?? DEFAULT_STATUS_REPORTS) !== 0;
}

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
  if (submitsInWait(opts)) return submitThenFollow(t, role, opts, kind, targetId, after);
  // Not cancellable: a cancel that arrives while it is in flight lets it finish, so the job id is known, and then the
  // job is cancelled (never left running). A cancel while it waits its turn withdraws it: nothing was sent.
  const outer = CancellationScope.current();
  const submitted = await CancellationScope.nonCancellable(() => submitUnderLock(t, kind, opts, targetId, outer));
  log.info('job recorded', { role, jobId: submitted.jobId, reconciled: submitted.reconciled });
  return followJob(t, role, opts, submitted, after);
}

/**
 * The wait submits the job, through the target's submitter, then waits for it; a cancel while its request waits its
 * turn withdraws it (nothing was sent). A wait that ends without an outcome has its job
 * named or looked up (`ownJobAfter`), then cancelled like any job whose wait ended (`waitEnded`); one that created
 * no job ends the workflow as a failed submission would, or cancelled.
 */
async function submitThenFollow(
  t: Tracker,
  role: string,
  opts: JobOptions,
  kind: JobKind,
  targetId: string,
  after: AfterCompletion,
): Promise<{ run: JobRun; fetched: Fetched }> {
  const submit = waitSubmission(kind, opts, targetId);
  const activityId = askId();
  const wait = submitAndWait(t, opts.maxWaitMs, opts.heartbeatTimeoutMs, activityId);
  const input = { ...heartbeatInput(opts, waitBound(opts, opts.maxStatusDurationMs, after, null)), submit };
  let outcome: WaitResult & { submitted: JobSubmitted };
  // Until the wait ends, its first report names the job (shared.ts): a cancel meanwhile cancels it at once.
  t.submittingItself(role);
  const known = new Set(t.progress.jobs.map((j) => j.jobId));
  const named = () => t.progress.jobs.find((j) => j.role === role && !known.has(j.jobId))?.jobId;
  try {
    const settle = () => settledJob(opts, submit, activityId);
    outcome = (await cancellingPromptly(t, opts, named, () => wait(input), settle).finally(() =>
      t.submittingItself(null),
    )) as typeof outcome;
  } catch (err) {
    const job = await ownJobAfter(opts, submit, err);
    if (!job) throw cancelRequested(err) ? asCancelled(err) : err;
    if (!t.hasJob(job.jobId)) t.addJob(role, job.jobId, job.reconciled, null, false);
    return waitEnded(t, role, opts, job.jobId, after, err, true);
  }
  const { submitted, ...first } = outcome;
  log.info('job recorded', { role, jobId: submitted.jobId, reconciled: submitted.reconciled });
  return followJob(t, role, opts, submitted, after, null, first);
}
