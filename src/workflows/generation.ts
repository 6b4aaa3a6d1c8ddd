/**
 * The pipeline's test-generation step: `generate` starts one for the suite; `auto` and `wait` follow the job the
 * deployment queues after profiling, unless the deployment says none will come (no default suite on the table
 * group, or not its first profiling run on TestGen), which spares the grace period.
 */
import { ApplicationFailure, log, patched, sleep } from '@temporalio/workflow';
import type { GenerationOutlook } from '../activities/summaries.js';
import type { JobRun } from '../contract/index.js';
import type { JobOptions } from '../contract/workflows.js';
import { followJob, runJob } from './follow.js';
import { type Tracker, activitiesWithin } from './shared.js';
import { submitUnderLock } from './submission.js';

type Input = JobOptions & {
  tableGroupId: string;
  testSuiteId: string;
  generationGraceMs: number;
  testGeneration: 'auto' | 'wait' | 'generate' | 'skip';
};

const notFound = (message: string) =>
  ApplicationFailure.create({ type: 'GenerationJobNotFound', nonRetryable: true, message });

/**
 * `outlook`: whether a generation job will follow, as the profiling wait read it (absent when it could not, and in
 * histories from before the wait read it: then an activity asks).
 */
export async function generationStep(
  t: Tracker,
  input: Input,
  profiledAt: string | null,
  outlook?: GenerationOutlook,
): Promise<JobRun | null> {
  if (input.testGeneration === 'skip') return null;
  const { call } = activitiesWithin(input.outageToleranceMs);
  if (input.testGeneration === 'generate')
    return (await runJob(t, 'generation', input, () => submitUnderLock(t, 'generation', input, input.testSuiteId))).run;

  // The outlook the profiling wait read needs no patch check (a marker and a search-attribute upsert, 2 events):
  // only histories from before the wait read it, or a wait that could not, reach the check, and then the activity.
  const seen =
    outlook ??
    (patched('generation-outlook-v1')
      ? await call.generationExpected({ profile: input.profile, tableGroupId: input.tableGroupId })
      : undefined);
  if (seen?.expected === false) {
    if (input.testGeneration === 'wait')
      throw notFound(`no test-generation job will follow the profiling run of ${input.tableGroupId}: ${seen.reason}`);
    log.info('no test generation to look for', { reason: seen.reason });
    return null;
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
  let found = await lookup();
  for (let waited = 0; !found && waited < input.generationGraceMs; waited += step) {
    await sleep(step);
    found = await lookup();
  }
  if (found)
    return (
      await followJob(t, 'generation', input, { jobId: found.id, createdAt: found.created_at, reconciled: false })
    ).run;
  if (input.testGeneration === 'wait')
    throw notFound(
      `no test-generation job followed the profiling run of ${input.tableGroupId} within ${input.generationGraceMs} ms`,
    );
  return null;
}
