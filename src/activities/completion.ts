/**
 * What a wait returns once the job is terminal: its outcome, and what the job's completion made readable (the
 * summary; after profiling, whether a test-generation job follows and which one), read in the same activity so the
 * workflow needs no activity, and no workflow task, for each.
 */
import { Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Job } from '../api/index.js';
import type { JobSnapshot, JobWaitOutcome, ProfilingSummary, TestRunSummary, WaitProgress } from '../contract/types.js';
import type { ActivityContext } from './context.js';
import { toFailure } from './errors.js';
import { snapshot } from './job-inputs.js';
import { followUpInline } from './follow-up.js';
import { readBudget } from './deadline.js';
import {
  followUpGeneration,
  generationOutlook,
  profilingSummary,
  testRunSummary,
  type GenerationOutlook,
} from './summaries.js';

export function outcome(job: Job, progress: WaitProgress): JobWaitOutcome {
  const started = job.started_at ? Date.parse(job.started_at) : null;
  const end = job.completed_at ? Date.parse(job.completed_at) : Date.now();
  return {
    job: snapshot(job),
    polls: progress.polls,
    claims: progress.claimsSeen.length,
    interrupts: progress.interrupts,
    durationMs: started === null ? null : Math.max(0, end - started),
    stuck: null,
  };
}

/** A wait's outcome, with what it fetched once the job completed (each absent when not asked for or not fetched). */
export interface WaitResult extends JobWaitOutcome {
  summary?: ProfilingSummary | TestRunSummary;
  generationOutlook?: GenerationOutlook;
  /** The follow-up test-generation job, when one may come: null when none was listed yet (the workflow looks on). */
  generationJob?: JobSnapshot | null;
  /** That job's own outcome, when the wait followed it to its end (`followUpMs`); else the workflow waits for it. */
  generationWait?: JobWaitOutcome;
}

/** Records a waited job's duration (the `dataops_job_duration` histogram), by kind and final status. */
function recordDuration(job: Job, durationMs: number | null): void {
  if (durationMs === null) return;
  Context.current()
    .metricMeter.createHistogram(
      'dataops_job_duration',
      'float',
      's',
      'Durations of the jobs waited for, by kind and final status',
    )
    .record(durationMs / 1000, { kind: job.job_key, status: job.status });
}

/**
 * The outcome of a finished job, with the reads asked for when it completed. A read that fails for a reason retrying
 * may cure (an outage, a 5xx, a garbled body), or that the activity's deadline cuts short (deadline.ts), is left out
 * and logged, and the workflow then calls the read's own activity, retried as every call is; one that retrying cannot
 * change fails the wait.
 */
export async function finished(
  ctx: ActivityContext,
  input: {
    profile: string;
    summary?: 'profiling' | 'test_run' | undefined;
    awaitScoreMs: number;
    generationOutlookOf?: string | undefined;
    projectCode?: string | undefined;
    followUpMs?: number | undefined;
    pollIntervalMs?: number | undefined;
  },
  job: Job,
  progress: WaitProgress,
): Promise<WaitResult> {
  const result: WaitResult = outcome(job, progress);
  const context = Context.current();
  recordDuration(job, result.durationMs);
  if (job.status !== 'completed' || (!input.summary && !input.generationOutlookOf)) return result;
  const { client, scoreScale = 'fraction', projectCode } = ctx.profile(input.profile);
  // Every read here is optional: it stops short of the activity's deadline rather than time the wait out.
  const budget = readBudget(context);
  const call = { signal: budget.signal, sleep: budget.sleep };
  try {
    if (input.summary === 'test_run')
      result.summary = await testRunSummary(client, scoreScale, job.id, input.awaitScoreMs, call);
    if (input.summary === 'profiling')
      result.summary = await profilingSummary(client, scoreScale, job.id, input.awaitScoreMs, call);
    if (input.generationOutlookOf) {
      result.generationOutlook = await generationOutlook(client, input.generationOutlookOf, call);
      if (result.generationOutlook.expected !== false)
        result.generationJob = await followUpGeneration(
          client,
          {
            tableGroupId: input.generationOutlookOf,
            projectCode: input.projectCode ?? projectCode,
            after: job.completed_at ?? new Date().toISOString(),
          },
          call,
        );
    }
    if (result.generationJob && input.followUpMs) {
      const followed = await followUpInline(
        client,
        result.generationJob,
        input.followUpMs,
        input.pollIntervalMs ?? 1_000,
        progress,
        call,
      );
      // As last seen: the workflow shows that status, and its own wait, if it needs one, does not report it again.
      if (followed) result.generationJob = snapshot(followed.job);
      if (followed?.ended) {
        result.generationWait = outcome(followed.job, followed.progress);
        recordDuration(followed.job, result.generationWait.durationMs);
      }
    }
  } catch (err) {
    if (budget.spent()) {
      log.info('the wait is near its deadline; the workflow reads the rest', { jobId: job.id });
      return result;
    }
    // An answer retrying cannot change (a schema break, a 4xx) fails here as it would in the read's own activity,
    // so it is never masked by a second read that happens to succeed. Anything else is left to that activity.
    const failure = toFailure(err);
    if (context.cancellationSignal.aborted || !(failure instanceof ApplicationFailure) || failure.nonRetryable)
      throw err;
    log.warn('could not read the finished job; the workflow will', { jobId: job.id, error: String(err) });
  } finally {
    budget.close();
  }
  return result;
}
