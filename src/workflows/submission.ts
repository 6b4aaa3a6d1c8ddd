/**
 * One submission in flight per target: each submission runs as a child workflow whose id names the profile, the kind
 * of job and the target, so Temporal itself refuses a second one while the first is unsettled, across every worker
 * and every workflow of the namespace. A lost answer can then only be about our own job (see
 * src/activities/reconcile.ts). The child is `submitJob`, an internal workflow type.
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
import type { JobSubmitted } from '../contract/index.js';
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

/** The failure the submission activity raised, as if the parent had called it (the chain callers already know). */
function unwrapped(err: unknown): unknown {
  return err instanceof ChildWorkflowFailure && err.cause instanceof ActivityFailure ? err.cause : err;
}

/**
 * Submits a job under the per-target lock. Waiting for the lock is cancellable (nothing was sent yet); the
 * submission itself is not, so a cancel that arrives meanwhile lets it finish and the job id is known.
 */
export async function submitUnderLock(
  t: Tracker,
  kind: SubmissionKind,
  opts: { profile: string; projectCode?: string | undefined; outageToleranceMs: number },
  targetId: string,
): Promise<JobSubmitted> {
  const args = { profile: opts.profile, targetId, projectCode: opts.projectCode };
  if (!patched('submission-lock-v1'))
    return CancellationScope.nonCancellable(() =>
      activitiesWithin(opts.outageToleranceMs).submit[ACTIVITY[kind]](args),
    );
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
  for (let waitMs = 500; ; waitMs = Math.min(waitMs * 2, 10_000)) {
    try {
      return await CancellationScope.nonCancellable(async () => {
        const child = await startChild(submitJob, {
          workflowId: `dataops-submit/${opts.profile}/${kind}/${targetId}`,
          args: [input],
          parentClosePolicy: 'REQUEST_CANCEL',
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        });
        return child.result();
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw unwrapped(err);
      t.stage(`waiting for another submission to ${targetId} to settle`);
      await sleep(waitMs);
    }
  }
}
