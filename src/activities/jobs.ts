/**
 * Job activities: exactly-once submission, two waiting strategies, idempotent cancel, summaries.
 */
import { activityInfo, Context, log } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { z } from 'zod';
import {
  ConnectionFailed,
  Conflict,
  RequestAborted,
  RequestTimedOut,
  ServerError,
  UnexpectedResponse,
  isTerminalJobStatus,
  type Job,
  type ServiceClient,
} from '../api/index.js';
import {
  WaitProgress,
  type CancelOutcome,
  type JobSnapshot,
  type JobSubmitted,
  type JobWaitOutcome,
  type ProfilingSummary,
  type TestRunSummary,
} from '../contract/types.js';
import type { ActivityContext } from './context.js';
import { SubmissionOutcomeUnknown, parseInput, translated } from './errors.js';

const Profile = z.string().min(1).default('default');
const Id = z.string().min(1);

export const SubmitInput = z.object({
  profile: Profile,
  /** Table group (profiling) or test suite (test run). */
  targetId: Id,
  /** Project of the target, for the job listing that reconciles a lost response. @default the profile's */
  projectCode: z.string().min(1).optional(),
});
export type SubmitInput = z.input<typeof SubmitInput>;

export const JobInput = z.object({ profile: Profile, jobId: Id });
export type JobInput = z.input<typeof JobInput>;

export const WaitInput = z.object({
  profile: Profile,
  jobId: Id,
  /** First poll interval. @default 5000 */
  pollIntervalMs: z.number().int().min(10).default(5_000),
  /** Longest poll interval; kept below half the heartbeat timeout. @default 30000 */
  maxPollIntervalMs: z.number().int().min(10).default(30_000),
  /** Growth of the interval per unchanged poll; reset on every status change. @default 1.5 */
  backoff: z.number().min(1).max(10).default(1.5),
});
export type WaitInput = z.input<typeof WaitInput>;

/** Failures that mean "the request may have been processed, the answer was lost". */
function isAmbiguous(err: unknown): boolean {
  if (err instanceof RequestTimedOut || err instanceof ServerError || err instanceof UnexpectedResponse) return true;
  if (err instanceof RequestAborted) return true;
  if (err instanceof ConnectionFailed) return !['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(err.code ?? '');
  return false;
}

export function snapshot(job: Job): JobSnapshot {
  return {
    id: job.id,
    job_key: job.job_key,
    status: job.status,
    created_at: job.created_at,
    claimed_at: job.claimed_at,
    started_at: job.started_at,
    completed_at: job.completed_at,
    error_message: job.error_message,
  };
}

const MAX_CLAIMS_KEPT = 50;

/** Records one poll: counts, claims, interrupts; logs each status change once. */
function observe(progress: WaitProgress, job: Job): boolean {
  progress.polls++;
  const changed = job.status !== progress.lastStatus;
  if (changed) {
    log.info('job status changed', { jobId: job.id, from: progress.lastStatus, to: job.status });
    if (job.status === 'interrupted') progress.interrupts++;
    progress.lastStatus = job.status;
  }
  if (job.claimed_at && !progress.claimsSeen.includes(job.claimed_at)) {
    progress.claimsSeen.push(job.claimed_at);
    if (progress.claimsSeen.length > MAX_CLAIMS_KEPT) progress.claimsSeen.shift();
  }
  return changed;
}

function outcome(job: Job, progress: WaitProgress): JobWaitOutcome {
  const started = job.started_at ? Date.parse(job.started_at) : null;
  const end = job.completed_at ? Date.parse(job.completed_at) : Date.now();
  return {
    job: snapshot(job),
    polls: progress.polls,
    claims: progress.claimsSeen.length,
    interrupts: progress.interrupts,
    durationMs: started === null ? null : Math.max(0, end - started),
  };
}

function resumeProgress(): WaitProgress {
  const parsed = WaitProgress.safeParse(activityInfo().heartbeatDetails);
  return parsed.success ? parsed.data : { lastStatus: null, claimsSeen: [], interrupts: 0, polls: 0 };
}

/** Heartbeat details of a submission: where the previous attempt got to. */
const SubmitPhase = z.object({ phase: z.enum(['sending', 'rejected']) });

export function jobActivities(ctx: ActivityContext) {
  /**
   * Finds a job created for `targetId` since this activity was first scheduled: the job a lost response was about.
   * Undefined when there is none; SubmissionOutcomeUnknown when it cannot be told.
   */
  async function reconcile(
    client: ServiceClient,
    projectCode: string,
    jobKey: string,
    targetField: 'table_group_id' | 'test_suite_id',
    targetId: string,
  ): Promise<Job | undefined> {
    const since = activityInfo().scheduledTimestampMs - ctx.clockSkewMs;
    const signal = Context.current().cancellationSignal;
    const candidates: Job[] = [];
    let targetFieldSeen = false;
    for (let page = 1; page <= 20; page++) {
      const list = await client.jobs.list(projectCode, { job_key: jobKey, page, limit: 100 }, { signal });
      let older = false;
      for (const job of list.items) {
        if (Date.parse(job.created_at) < since) {
          older = true;
          continue;
        }
        if (targetField in job) targetFieldSeen = true;
        if (job[targetField] !== targetId) continue;
        if (typeof job.source === 'string' && job.source !== 'api') continue;
        if (typeof job.created_by === 'string' && client.username && job.created_by !== client.username) continue;
        candidates.push(job);
      }
      if (older || list.items.length < list.limit || page * list.limit >= list.total) break;
    }
    if (candidates.length === 1) return candidates[0];
    if (candidates.length > 1)
      throw new SubmissionOutcomeUnknown(
        `a submission for ${targetId} may have been lost, and ${candidates.length} jobs match it (${candidates.map((j) => j.id).join(', ')}); not submitting again`,
      );
    if (!targetFieldSeen && candidates.length === 0) {
      // Either no job since `since`, or a deployment whose listing does not say which target a job belongs to.
      const anyRecent = await client.jobs.list(projectCode, { job_key: jobKey, limit: 1 }, { signal });
      const newest = anyRecent.items[0];
      if (newest && Date.parse(newest.created_at) >= since && !(targetField in newest))
        throw new SubmissionOutcomeUnknown(
          `the job listing does not show ${targetField}, so a lost submission for ${targetId} cannot be matched; not submitting again`,
        );
    }
    return undefined;
  }

  async function submit(kind: 'profiling' | 'tests', raw: SubmitInput): Promise<JobSubmitted> {
    const input = parseInput(SubmitInput, raw, kind === 'profiling' ? 'submitProfilingRun' : 'submitTestRun');
    return translated(async () => {
      const { client, projectCode: profileProject } = ctx.profile(input.profile);
      const projectCode = input.projectCode ?? profileProject;
      const jobKey = kind === 'profiling' ? 'run-profile' : 'run-tests';
      const targetField = kind === 'profiling' ? 'table_group_id' : 'test_suite_id';
      const info = activityInfo();
      const signal = Context.current().cancellationSignal;

      if (info.attempt > 1) {
        if (projectCode) {
          const found = await reconcile(client, projectCode, jobKey, targetField, input.targetId);
          if (found) {
            log.warn('reattached to a job whose submission response was lost', { jobId: found.id });
            return { jobId: found.id, createdAt: found.created_at, reconciled: true };
          }
        } else if (SubmitPhase.safeParse(info.heartbeatDetails).data?.phase !== 'rejected') {
          throw new SubmissionOutcomeUnknown(
            `an earlier attempt to submit for ${input.targetId} may have created a job, and no project code is configured to look it up; not submitting again`,
          );
        }
      }
      Context.current().heartbeat({ phase: 'sending' });
      try {
        const res =
          kind === 'profiling'
            ? await client.profilingRuns.submit(input.targetId, { signal })
            : await client.testRuns.submit(input.targetId, { signal });
        log.info('job submitted', { jobId: res.id, kind: jobKey, targetId: input.targetId });
        return { jobId: res.id, createdAt: res.created_at ?? null, reconciled: false };
      } catch (err) {
        if (!isAmbiguous(err)) {
          Context.current().heartbeat({ phase: 'rejected' });
          throw err;
        }
        if (!projectCode)
          throw new SubmissionOutcomeUnknown(
            `the submission for ${input.targetId} may have created a job (${(err as Error).message}), and no project code is configured to look it up; not submitting again`,
          );
        const found = await reconcile(client, projectCode, jobKey, targetField, input.targetId);
        if (found) {
          log.warn('submission response lost; found the job through the listing', { jobId: found.id });
          return { jobId: found.id, createdAt: found.created_at, reconciled: true };
        }
        throw err; // retryable; the next attempt looks again before it submits
      }
    });
  }

  return {
    /** Submits a profiling run once: a retry reattaches to the job a lost response created. */
    submitProfilingRun: async (input: SubmitInput): Promise<JobSubmitted> => {
      return submit('profiling', input);
    },

    /** Submits a test run once: a retry reattaches to the job a lost response created. */
    submitTestRun: async (input: SubmitInput): Promise<JobSubmitted> => {
      return submit('tests', input);
    },

    getJob: async (raw: JobInput): Promise<JobSnapshot> => {
      const input = parseInput(JobInput, raw, 'getJob');
      return translated(async () =>
        snapshot(
          await ctx
            .profile(input.profile)
            .client.jobs.get(input.jobId, { signal: Context.current().cancellationSignal }),
        ),
      );
    },

    /**
     * Waits for a terminal status with short polls and heartbeats (strategy `heartbeat`). History stays constant; a
     * crashed worker is found by the heartbeat timeout, and the next attempt carries on from the heartbeat details.
     * Cancellation is seen within one poll interval and aborts the HTTP call in flight.
     */
    waitForJob: async (raw: WaitInput): Promise<JobWaitOutcome> => {
      const input = parseInput(WaitInput, raw, 'waitForJob');
      return translated(async () => {
        const context = Context.current();
        const { client } = ctx.profile(input.profile);
        const progress = resumeProgress();
        const heartbeatTimeout = activityInfo().heartbeatTimeoutMs;
        const ceiling = Math.min(
          input.maxPollIntervalMs,
          heartbeatTimeout ? Math.floor(heartbeatTimeout / 2) : Infinity,
        );
        let interval = Math.min(input.pollIntervalMs, ceiling);
        for (;;) {
          const job = await client.jobs.get(input.jobId, { signal: context.cancellationSignal });
          const changed = observe(progress, job);
          context.heartbeat(progress);
          if (isTerminalJobStatus(job.status)) return outcome(job, progress);
          if (changed) interval = Math.min(input.pollIntervalMs, ceiling);
          await context.sleep(interval);
          interval = Math.min(Math.ceil(interval * input.backoff), ceiling);
        }
      });
    },

    /**
     * One poll of the deferrable strategy: returns when the job is terminal, otherwise fails with the benign,
     * retryable `JobStillRunning`, so the retry policy is the timer and no activity slot is held between polls.
     */
    checkJob: async (raw: JobInput): Promise<JobWaitOutcome> => {
      const input = parseInput(JobInput, raw, 'checkJob');
      return translated(async () => {
        const context = Context.current();
        const progress = resumeProgress();
        progress.polls = Math.max(progress.polls, activityInfo().attempt - 1);
        const job = await ctx
          .profile(input.profile)
          .client.jobs.get(input.jobId, { signal: context.cancellationSignal });
        observe(progress, job);
        context.heartbeat(progress);
        if (isTerminalJobStatus(job.status)) return outcome(job, progress);
        throw ApplicationFailure.create({
          type: 'JobStillRunning',
          message: `job ${job.id} is ${job.status}`,
          nonRetryable: false,
          category: ApplicationFailureCategory.BENIGN,
          details: [progress],
        });
      });
    },

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

    getTestRunSummary: async (raw: JobInput): Promise<TestRunSummary> => {
      const input = parseInput(JobInput, raw, 'getTestRunSummary');
      return translated(async () => {
        const s = await ctx
          .profile(input.profile)
          .client.testRuns.summary(input.jobId, { signal: Context.current().cancellationSignal });
        const c = s.result?.result_counts;
        return {
          jobId: s.id,
          status: s.status,
          testSuiteId: s.test_suite_id,
          tableGroupId: s.table_group_id,
          startedAt: s.started_at,
          completedAt: s.completed_at,
          score: s.result?.score ?? null,
          resultCounts: c
            ? {
                passed: c.passed,
                failed: c.failed,
                warning: c.warning,
                error: c.error,
                log: c.log,
                dismissed: c.dismissed,
              }
            : null,
        };
      });
    },

    getProfilingSummary: async (raw: JobInput): Promise<ProfilingSummary> => {
      const input = parseInput(JobInput, raw, 'getProfilingSummary');
      return translated(async () => {
        const s = await ctx
          .profile(input.profile)
          .client.profilingRuns.summary(input.jobId, { signal: Context.current().cancellationSignal });
        const r = s.result;
        const h = r?.issue_counts.hygiene_issues;
        const pii = r?.issue_counts.potential_pii;
        return {
          jobId: s.id,
          status: s.status,
          tableGroupId: s.table_group_id,
          startedAt: s.started_at,
          completedAt: s.completed_at,
          score: r?.score ?? null,
          tableCount: r?.table_ct ?? null,
          columnCount: r?.column_ct ?? null,
          recordCount: r?.record_ct ?? null,
          hygieneIssues: h ? { definite: h.definite, likely: h.likely, possible: h.possible } : null,
          potentialPii: pii ? { high: pii.high, moderate: pii.moderate } : null,
          dismissedIssues: r?.issue_counts.dismissed ?? null,
        };
      });
    },

    /**
     * Finds the test-generation job that follows a profiling run of an auto-generating table group: the newest
     * `run-test-generation` job of the table group created at or after the profiling run completed. Null if none.
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
        const { client, projectCode: profileProject } = ctx.profile(input.profile);
        const projectCode = input.projectCode ?? profileProject;
        if (!projectCode) return null;
        const after = Date.parse(input.after) - 1_000;
        const list = await client.jobs.list(
          projectCode,
          { job_key: 'run-test-generation', limit: 100 },
          { signal: Context.current().cancellationSignal },
        );
        const found = list.items.find(
          (j) => j.table_group_id === input.tableGroupId && Date.parse(j.created_at) >= after,
        );
        return found ? snapshot(found) : null;
      });
    },
  };
}
