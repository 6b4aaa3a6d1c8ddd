/**
 * The pipeline's test run submitted by the profiling wait itself (src/activities/chained.ts): what the workflow asks
 * of the wait, and what becomes of the run when the workflow cannot follow it.
 */
import { isCancellation } from '@temporalio/workflow';
import type { JobSubmitted } from '../contract/index.js';
import type { JobOptions } from '../contract/workflows.js';
import type { AfterCompletion } from './follow.js';
import { applies } from './patches.js';
import { cancelRemoteJob, unconfirmedCancel } from './remote-cancel.js';
import { submissionLockId } from './submission.js';
import type { Tracker } from './shared.js';

type TestGeneration = 'auto' | 'wait' | 'generate' | 'skip';

/**
 * What the profiling wait may submit as it sees the run complete: the test run, when nothing the workflow does in
 * between needs an activity (no generation to start; a follow-up, if looked for, gone or finished). Undefined: the
 * workflow submits.
 */
export function testRunAfterProfiling(
  opts: JobOptions,
  testGeneration: TestGeneration,
  testSuiteId: string,
): AfterCompletion['then'] {
  if (testGeneration === 'generate') return undefined;
  if (!applies('testRunFromProfilingWait')) return undefined;
  const generation = ({ skip: 'not-looked-for', auto: 'absent-or-completed', wait: 'completed' } as const)[
    testGeneration
  ];
  return {
    kind: 'tests',
    targetId: testSuiteId,
    ...(opts.projectCode ? { projectCode: opts.projectCode } : {}),
    lock: submissionLockId('tests', opts.profile, testSuiteId),
    generation,
  };
}

/**
 * The wait submitted a job the workflow will not follow (it failed, or was cancelled, before reaching it): cancel
 * it rather than leave it running with nobody watching. A cancelled workflow whose cancel of it is not confirmed
 * fails RemoteCancelUnconfirmed instead of ending cancelled.
 */
export async function dropUnfollowed(t: Tracker, opts: JobOptions, job: JobSubmitted, err: unknown): Promise<void> {
  if (!opts.cancelRemoteJob) return;
  const cancelled = isCancellation(err);
  t.addJob('test_run', job.jobId, job.reconciled, null, false);
  const { final: _, ...outcome } = await cancelRemoteJob(
    t,
    opts,
    job.jobId,
    cancelled ? 'workflow_cancelled' : 'workflow_failed',
  );
  if (cancelled && !outcome.confirmed) throw unconfirmedCancel(outcome);
}
