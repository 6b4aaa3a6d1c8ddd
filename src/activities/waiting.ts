/**
 * Waiting for a job to reach a terminal status, in two strategies: `waitForJob` (short polls in one heartbeating
 * activity) and `checkJob` (one poll per attempt, the retry policy as the timer). Both resume from heartbeat details.
 */
import { activityInfo, Context, log } from '@temporalio/activity';
import type { z } from 'zod';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { isTerminalJobStatus, type Job } from '../api/index.js';
import { jobStatusSignal } from '../contract/messages.js';
import { WaitProgress, type JobSnapshot, type JobWaitOutcome } from '../contract/types.js';
import type { ActivityContext } from './context.js';
import { beat, note, rest } from './heartbeats.js';
import { parseInput, translated } from './errors.js';
import { CheckInput, JobInput, WaitInput, snapshot } from './job-inputs.js';
import { finished, outcome, type WaitResult } from './completion.js';
import { freshProgress, observe, untilNextPoll } from './wait-progress.js';
import { roomForAnotherAttempt } from './deadline.js';

/** What a heartbeating wait is told about polling, reporting and what to read at the end. */
type Waiting = Omit<z.output<typeof WaitInput>, 'jobId'>;

/** The least time between two status reports to the workflow: each one is a history event. */
const REPORT_EVERY_MS = 5_000;

/** The early return of a wait whose job has held one non-terminal status longer than the caller's bound. */
function stuckOutcome(job: Job, progress: WaitProgress, bound: number | undefined): JobWaitOutcome | undefined {
  if (bound === undefined || progress.statusSince === null) return undefined;
  const forMs = Date.now() - progress.statusSince;
  if (forMs <= bound) return undefined;
  log.warn('job has held one status longer than the bound', { jobId: job.id, status: job.status, forMs, bound });
  return { ...outcome(job, progress), stuck: { status: job.status, forMs } };
}

/** Statuses before the work starts: the workflow shows `pending` from the submission, so they are not reported. */
const NOT_REPORTED = new Set(['pending', 'claimed']);

/**
 * Tells the workflow the job's new status (the `jobStatus` signal), so its `progress` query is live. Each report
 * costs the workflow a signal and a workflow task (4 history events), so: only a status the work is in (not
 * `pending`, `claimed`, nor the terminal one the wait's result carries), at most one
 * report every REPORT_EVERY_MS, a change missed in that window reported at the next poll after it, and at most
 * `budget` reports in all (counted in the heartbeat details, so across attempts): history stays bounded however often
 * the job is interrupted.
 * Best effort: a failed report is logged and not counted. Answers whether it reported.
 */
async function reportStatus(job: Job, progress: WaitProgress, budget: number): Promise<boolean> {
  if (isTerminalJobStatus(job.status) || NOT_REPORTED.has(job.status)) return false;
  if (progress.reportedStatus === job.status || progress.reports >= budget) return false;
  if (progress.reportedAt !== null && Date.now() - progress.reportedAt < REPORT_EVERY_MS) return false;
  const execution = activityInfo().workflowExecution;
  if (!execution) return false; // a standalone activity: no workflow to tell
  progress.reportedAt = Date.now();
  try {
    await Context.current()
      .client.workflow.getHandle(execution.workflowId, execution.runId)
      .signal(jobStatusSignal, {
        jobId: job.id,
        status: job.status,
        polls: progress.polls,
        claims: progress.claimsSeen.length,
        interrupts: progress.interrupts,
        at: new Date(progress.reportedAt).toISOString(),
        last: progress.reports + 1 >= budget,
      });
    progress.reportedStatus = job.status;
    progress.reports++;
    return true;
  } catch (err) {
    log.warn('could not report the job status to the workflow', { jobId: job.id, error: String(err) });
    return false;
  }
}

/** The deferrable strategy's benign, retryable "not yet": the retry policy is the timer between polls. */
function stillRunning(message: string, progress: WaitProgress, nextRetryDelayMs?: number): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'JobStillRunning',
    message,
    nonRetryable: false,
    category: ApplicationFailureCategory.BENIGN,
    details: [progress],
    ...(nextRetryDelayMs === undefined ? {} : { nextRetryDelay: nextRetryDelayMs }),
  });
}

/**
 * The progress a previous attempt heartbeated, and whether there was one. A fresh one starts from `seenStatus`, the
 * status the workflow already shows, so that it is not reported again.
 */
function resumeProgress(seenStatus: string | undefined): { progress: WaitProgress; resumed: boolean } {
  const parsed = WaitProgress.safeParse(activityInfo().heartbeatDetails);
  if (parsed.success) return { progress: parsed.data, resumed: true };
  return { progress: { ...freshProgress(), reportedStatus: seenStatus ?? null }, resumed: false };
}

export function waitingActivities(ctx: ActivityContext) {
  /** Polls job `jobId` with heartbeats until it is terminal, or has held one status past the bound. */
  async function pollToTheEnd(input: Waiting, jobId: string, progress: WaitProgress): Promise<WaitResult> {
    const context = Context.current();
    const { client } = ctx.profile(input.profile);
    const heartbeatTimeout = activityInfo().heartbeatTimeoutMs;
    const ceiling = Math.min(input.maxPollIntervalMs, heartbeatTimeout ? Math.floor(heartbeatTimeout / 2) : Infinity);
    let interval = Math.min(input.pollIntervalMs, ceiling);
    for (;;) {
      const polledAt = Date.now();
      const job = await client.jobs.get(jobId, { signal: context.cancellationSignal });
      const changed = observe(progress, job);
      // A report is counted against its budget across attempts, so it is recorded at once; a poll's progress
      // goes with the next beat while the wait waits (heartbeats.ts).
      if (await reportStatus(job, progress, input.statusReports)) beat(progress);
      else note(progress);
      if (isTerminalJobStatus(job.status)) return finished(ctx, input, job, progress);
      const stuck = stuckOutcome(job, progress, input.maxStatusDurationMs);
      if (stuck) return stuck;
      if (changed) interval = Math.min(input.pollIntervalMs, ceiling);
      await rest(untilNextPoll(polledAt, interval));
      interval = Math.min(Math.ceil(interval * input.backoff), ceiling);
    }
  }

  return {
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
    waitForJob: async (raw: WaitInput): Promise<WaitResult> => {
      const input = parseInput(WaitInput, raw, 'waitForJob');
      return translated(async () => pollToTheEnd(input, input.jobId, resumeProgress(input.seenStatus).progress));
    },

    /**
     * One poll of the deferrable strategy: returns when the job is terminal, otherwise fails with the benign,
     * retryable `JobStillRunning`, so the retry policy is the timer and no activity slot is held between polls.
     */
    checkJob: async (raw: CheckInput): Promise<WaitResult> => {
      const input = parseInput(CheckInput, raw, 'checkJob');
      return translated(async () => {
        const context = Context.current();
        const { progress, resumed } = resumeProgress(input.seenStatus);
        progress.polls = Math.max(progress.polls, activityInfo().attempt - 1);
        const job = await ctx
          .profile(input.profile)
          .client.jobs.get(input.jobId, { signal: context.cancellationSignal });
        observe(progress, job);
        // Without the previous attempt's details we cannot tell a change from a repeat: report on the first only.
        if (resumed || activityInfo().attempt === 1) await reportStatus(job, progress, input.statusReports);
        beat(progress);
        if (isTerminalJobStatus(job.status)) {
          // One poll of a generation follow-up per attempt, as of the job itself: the retry policy is the timer.
          const onePoll = input.followUpMs ? { ...input, followUpMs: 1 } : input;
          const result = await finished(ctx, onePoll, job, progress);
          const follow = result.generationJob;
          // Still running: looked at again by the next attempt, one poll interval later, while the window lasts since
          // the run was seen ending and the activity's deadline leaves room for that attempt.
          const seenEnding = progress.statusSince ?? Date.now();
          const next = input.pollIntervalMs ?? 1_000;
          if (
            follow &&
            !result.generationWait &&
            Date.now() - seenEnding < (input.followUpMs ?? 0) &&
            roomForAnotherAttempt(next)
          )
            throw stillRunning(
              `job ${job.id} is ${job.status}; its generation follow-up ${follow.id} is running`,
              progress,
              next,
            );
          return result;
        }
        const stuck = stuckOutcome(job, progress, input.maxStatusDurationMs);
        if (stuck) return stuck;
        throw stillRunning(`job ${job.id} is ${job.status}`, progress);
      });
    },
  };
}
