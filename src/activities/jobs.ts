/**
 * The job activities around submission and waiting: idempotent cancel, the two summaries, and the lookup of the
 * test-generation job that follows a profiling run.
 */
import { Context, log } from '@temporalio/activity';
import { z } from 'zod';
import { Conflict, isTerminalJobStatus } from '../api/index.js';
import type { CancelOutcome, JobSnapshot, ProfilingSummary, TestRunSummary } from '../contract/types.js';
import type { ActivityContext } from './context.js';
import { parseInput, translated } from './errors.js';
import { AwaitScoreMs, Id, JobInput, Profile, snapshot } from './job-inputs.js';
import {
  followUpGeneration,
  generationOutlook,
  profilingSummary,
  testRunSummary,
  type GenerationOutlook,
} from './summaries.js';
import { beatingWhile } from './heartbeats.js';

const SummaryInput = JobInput.extend({ awaitScoreMs: AwaitScoreMs });
type SummaryInput = z.input<typeof SummaryInput>;

/** A summary read in its own activity: aborted by the activity's cancellation, and sleeping cancellably. */
function activityCall() {
  const context = Context.current();
  return { signal: context.cancellationSignal, sleep: (ms: number) => beatingWhile(context.sleep(ms)) };
}

export function jobActivities(ctx: ActivityContext) {
  return {
    /** Requests cancellation; idempotent. A job that is already terminal (409) is returned as it is. */
    cancelJob: async (raw: JobInput): Promise<CancelOutcome> => {
      const input = parseInput(JobInput, raw, 'cancelJob');
      return translated(async () => {
        const { client } = ctx.profile(input.profile);
        const signal = Context.current().cancellationSignal;
        try {
          const job = await client.jobs.cancel(input.jobId, { signal });
          log.info('job cancel requested', { jobId: job.id, status: job.status });
          return { job: snapshot(job), alreadyTerminal: false };
        } catch (err) {
          if (!(err instanceof Conflict)) throw err;
          const job = await client.jobs.get(input.jobId, { signal });
          if (!isTerminalJobStatus(job.status)) throw err;
          log.info('job already terminal; nothing to cancel', { jobId: job.id, status: job.status });
          return { job: snapshot(job), alreadyTerminal: true };
        }
      });
    },

    /** The test-run summary, the score awaited up to `awaitScoreMs` (see summaries.ts). */
    getTestRunSummary: async (raw: SummaryInput): Promise<TestRunSummary> => {
      const input = parseInput(SummaryInput, raw, 'getTestRunSummary');
      return translated(async () => {
        const { client, scoreScale = 'fraction' } = ctx.profile(input.profile);
        return testRunSummary(client, scoreScale, input.jobId, input.awaitScoreMs, activityCall());
      });
    },

    /** The profiling summary, the score awaited up to `awaitScoreMs` (see summaries.ts). */
    getProfilingSummary: async (raw: SummaryInput): Promise<ProfilingSummary> => {
      const input = parseInput(SummaryInput, raw, 'getProfilingSummary');
      return translated(async () => {
        const { client, scoreScale = 'fraction' } = ctx.profile(input.profile);
        return profilingSummary(client, scoreScale, input.jobId, input.awaitScoreMs, activityCall());
      });
    },

    /** Whether a test-generation job can follow this table group's profiling run (see summaries.ts). */
    generationExpected: async (raw: { profile?: string; tableGroupId: string }): Promise<GenerationOutlook> => {
      const input = parseInput(z.object({ profile: Profile, tableGroupId: Id }), raw, 'generationExpected');
      return translated(async () =>
        generationOutlook(ctx.profile(input.profile).client, input.tableGroupId, {
          signal: Context.current().cancellationSignal,
        }),
      );
    },

    /**
     * Finds the test-generation job that follows a profiling run of an auto-generating table group (`after`: when the
     * run completed), among the project's latest 100 `run-test-generation` jobs. Where jobs carry their table group:
     * the first listed of that table group created no earlier than a second before `after`. Where they do not
     * (TestGen 5.134): the one job the service queued itself (its `source` not `api`) within 30 s of `after`; with
     * several such, none is taken. Null when none is found, or with no project code to list jobs in.
     */
    findGenerationJob: async (raw: {
      profile?: string;
      tableGroupId: string;
      projectCode?: string;
      after: string;
    }): Promise<JobSnapshot | null> => {
      const input = parseInput(
        z.object({
          profile: Profile,
          tableGroupId: Id,
          projectCode: z.string().min(1).optional(),
          after: z.string().min(1),
        }),
        raw,
        'findGenerationJob',
      );
      return translated(async () => {
        const { client, projectCode } = ctx.profile(input.profile);
        return followUpGeneration(
          client,
          { tableGroupId: input.tableGroupId, projectCode: input.projectCode ?? projectCode, after: input.after },
          { signal: Context.current().cancellationSignal },
        );
      });
    },
  };
}
