/**
 * The pipeline's test-generation step: `generate` starts one for the suite; `auto` and `wait` follow the job the
 * deployment queues after profiling, unless the deployment says none will come (no default suite on the table
 * group, or not its first profiling run on TestGen), which spares the grace period.
 */
import { ApplicationFailure, isCancellation, log, sleep } from '@temporalio/workflow';
import type { JobRun, JobSnapshot } from '../contract/index.js';
import type { JobOptions } from '../contract/workflows.js';
import { followJob, type Fetched } from './follow.js';
import { concluded } from './job-endings.js';
import { runJob } from './submit-and-wait.js';
import { cancelFollowUp } from './follow-up.js';
import { unconfirmedCancel } from '../exactly-once/workflow/index.js';
import { type Tracker, activitiesWithin } from './shared.js';

type Input = JobOptions & {
  tableGroupId: string;
  testSuiteId: string;
  generationGraceMs: number;
  testGeneration: 'auto' | 'wait' | 'generate' | 'skip';
};

const notFound = (message: string) =>
  ApplicationFailure.create({ type: 'GenerationJobNotFound', nonRetryable: true, message });

/**
 * `fetched`: what the profiling wait read as the run completed: whether a generation job will follow, and the job
 * itself (each absent when it could not read it, and in histories from before it did: then an activity asks).
 */
export async function generationStep(
  t: Tracker,
  input: Input,
  profiledAt: string | null,
  fetched: Fetched = {},
): Promise<JobRun | null> {
  const outlook = fetched.generationOutlook;
  if (input.testGeneration === 'skip') return null;
  const { call } = activitiesWithin(input.outageToleranceMs);
  if (input.testGeneration === 'generate') {
    t.search.set({ stage: 'generation' });
    return (await runJob(t, 'generation', input, 'generation', input.testSuiteId)).run;
  }

  // The outlook the profiling wait read, or, when it could not, the activity's.
  const seen = outlook ?? (await call.generationExpected({ profile: input.profile, tableGroupId: input.tableGroupId }));
  if (seen?.expected === false) {
    if (input.testGeneration === 'wait')
      throw notFound(`no test-generation job will follow the profiling run of ${input.tableGroupId}: ${seen.reason}`);
    log.info('no test generation to look for', { reason: seen.reason });
    return null;
  }

  // The profiling wait followed the job to its end: nothing left to wait for (no activity, no task, no report).
  const ended = fetched.generationWait;
  if (ended) {
    t.addJob('generation', ended.job.id, false, null, false);
    return concluded(
      t,
      'generation',
      { jobId: ended.job.id, createdAt: ended.job.created_at, reconciled: false },
      ended,
    );
  }

  t.stage('looking for test generation');
  const after = profiledAt ?? new Date().toISOString();
  const step = Math.min(5_000, Math.max(1_000, input.generationGraceMs));
  const lookup = () =>
    call.findGenerationJob({
      profile: input.profile,
      tableGroupId: input.tableGroupId,
      projectCode: input.projectCode,
      after,
    });
  // The profiling wait looked once as it saw the run complete (null: not listed yet); when it could not, look now.
  let found: JobSnapshot | null;
  try {
    found = fetched.generationJob === undefined ? await lookup() : fetched.generationJob;
    for (let waited = 0; !found && waited < input.generationGraceMs; waited += step) {
      await sleep(step);
      found = await lookup();
    }
  } catch (err) {
    // Cancelled while looking: TestGen may have queued the follow-up already, seen or not. Cancel it like our own job.
    if (isCancellation(err) && input.cancelRemoteJob) {
      const of = {
        generationOutlookOf: input.tableGroupId,
        ...(input.projectCode ? { projectCode: input.projectCode } : {}),
      };
      const outcome = await cancelFollowUp(t, input, of, profiledAt, 'workflow_cancelled');
      if (outcome && !outcome.confirmed) throw unconfirmedCancel(t, outcome);
    }
    throw err;
  }
  if (found) {
    t.search.set({ stage: 'generation' });
    return (
      await followJob(
        t,
        'generation',
        input,
        { jobId: found.id, createdAt: found.created_at, reconciled: false },
        {},
        found.status,
      )
    ).run;
  }
  if (input.testGeneration === 'wait')
    throw notFound(
      `no test-generation job followed the profiling run of ${input.tableGroupId} within ${input.generationGraceMs} ms`,
    );
  return null;
}
