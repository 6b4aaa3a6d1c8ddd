/**
 * Shared workflow machinery: the activity proxies and progress tracking (the input check is in input.ts). Running a remote job is
 * in follow.ts. Deterministic code: no Node modules, no service client, activity types only.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  log,
  setHandler,
  TimeoutFailure,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { callsWithin, submissionsWithin, transfersWithin, waitsTaskQueue } from '../contract/activity-options.js';
import { jobStatusSignal, progressQuery } from '../contract/messages.js';
import type { Progress } from '../contract/progress.js';
import type { JobStatusReport, JobWaitOutcome } from '../contract/types.js';
import { jobLink, type JobLinks } from '../contract/job-links.js';
import { READS_TABLES, type LineageFacts } from '../contract/lineage.js';
import { Searchable } from './search.js';
import { WorkflowLineage, type Failed } from './lineage.js';
import { ourActivities } from './ours.js';

/** The activities, retried through an outage of up to `outageToleranceMs` (the workflow's input). */
export function activitiesWithin(outageToleranceMs: number) {
  return {
    call: ourActivities(callsWithin(outageToleranceMs)),
    submit: ourActivities(submissionsWithin(outageToleranceMs)),
    transfer: ourActivities(transfersWithin(outageToleranceMs)),
  };
}

/**
 * Whether `err` is a wait that ran out of its `maxWaitMs`: its activity timed out (schedule- or start-to-close), or
 * its last retry would have started past that time.
 */
export function ranOutOfMaxWait(err: unknown): err is ActivityFailure {
  if (!(err instanceof ActivityFailure)) return false;
  const timeout = err.cause instanceof TimeoutFailure ? err.cause.timeoutType : undefined;
  return err.retryState === 'TIMEOUT' || timeout === 'SCHEDULE_TO_CLOSE' || timeout === 'START_TO_CLOSE';
}

/** A failure's type: an ApplicationFailure's own, or that of the activity failure's cause; else its name. */
function failureType(err: unknown): string | undefined {
  if (err instanceof ApplicationFailure && err.type) return err.type;
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type)
    return err.cause.type;
  return err instanceof Error ? err.name : undefined;
}

/** The workflow's progress, answered by the `progress` query. */
export class Tracker {
  readonly progress: Progress;
  /** The run's search attributes (search.ts). */
  readonly search = new Searchable();
  /**
   * The task queue of the heartbeating waits: the worker's (DATAOPS_WAITS_TASK_QUEUE), told by its input check and
   * recorded with it; `<queue>-waits` in runs whose check did not tell it (every run before the setting).
   */
  waitsTaskQueue = waitsTaskQueue(workflowInfo().taskQueue);
  /** Each job's page in the service's UI by role, told by the input check (none when the worker knows no UI). */
  links: JobLinks = {};
  /** The pages kept in the memo so far, by job or order run id. */
  private readonly pages: Record<string, string> = {};
  /** The run's lineage (lineage.ts): on when the input check says the worker sends it. */
  readonly lineage: WorkflowLineage;
  /** What the run produced, for its lineage's last event (the pipeline's test summary and gates). */
  facts: LineageFacts | undefined;
  /**
   * A run that completes with a failed verdict (its gates failed, reported; its order's run did not complete): its
   * lineage ends FAIL with this, not COMPLETE, though the workflow completes.
   */
  failedVerdict: Failed | undefined;

  constructor(workflowType: string) {
    this.lineage = new WorkflowLineage(workflowType);
    const now = new Date().toISOString();
    this.progress = {
      workflowType,
      stage: 'starting',
      startedAt: now,
      updatedAt: now,
      jobs: [],
      lastStatus: null,
      polls: 0,
      claims: 0,
      interrupts: 0,
      currentWait: null,
      orderId: null,
      remoteCancel: null,
      stuck: null,
      error: null,
    };
    setHandler(progressQuery, () => this.view());
    setHandler(jobStatusSignal, (report) => this.live(report));
  }

  /** The live counts of the wait in progress (from the `jobStatus` signal), added to the finished waits' totals. */
  private current: JobStatusReport | null = null;
  private readonly waitsEnded = new Set<string>();

  private view(): Progress {
    const c = this.current;
    if (!c) return this.progress;
    return {
      ...this.progress,
      polls: this.progress.polls + c.polls,
      claims: this.progress.claims + c.claims,
      interrupts: this.progress.interrupts + c.interrupts,
      currentWait: {
        jobId: c.jobId,
        status: c.status,
        polls: c.polls,
        claims: c.claims,
        interrupts: c.interrupts,
        at: c.at ?? null,
      },
    };
  }

  /** A waiting activity's report of a status change; a report for a job whose wait has ended is ignored. */
  private live(report: JobStatusReport): void {
    const job = this.progress.jobs.find((j) => j.jobId === report.jobId);
    if (this.waitsEnded.has(report.jobId) || !job) return;
    this.current = report;
    this.jobStatus(report.jobId, report.status, report.at ?? new Date().toISOString());
    // Reports from waits scheduled before the bound never say which is the last.
    if (report.last) job.live = false;
  }

  stage(stage: string): void {
    this.progress.stage = stage;
    this.touch();
    log.info('stage', { stage });
  }

  touch(): void {
    this.progress.updatedAt = new Date().toISOString();
  }

  hasJob(jobId: string): boolean {
    return this.progress.jobs.some((j) => j.jobId === jobId);
  }

  /** A job being waited for: `live` when its wait will report changes (its `statusReports` is not 0). */
  addJob(role: string, jobId: string, reconciled: boolean, status: string | null, live: boolean): void {
    const now = new Date().toISOString();
    const url = jobLink(this.links, role, jobId);
    this.progress.jobs.push({
      role,
      jobId,
      status,
      statusAt: status === null ? null : now,
      live,
      reconciled,
      ...(url ? { url } : {}),
    });
    this.progress.lastStatus = status;
    this.touch();
    if (url) this.keepPage(jobId, url);
    this.lineage.jobStarted({ role, jobId, status, ...(url ? { url } : {}) }, now);
  }

  /** A page that outlives the run in its memo (`jobLinks`, by job or order run id): one write each. */
  keepPage(id: string, url: string): void {
    this.pages[id] = url;
    upsertMemo({ jobLinks: { ...this.pages } });
  }

  /** A job's page in the service's UI, where the deployment has one. */
  urlOf(jobId: string): string | undefined {
    return this.progress.jobs.find((j) => j.jobId === jobId)?.url;
  }

  /** A job has completed and what it produced is read: its lineage ends with it. */
  jobDone(jobId: string, facts: LineageFacts): void {
    const job = this.progress.jobs.find((j) => j.jobId === jobId);
    if (job) this.lineage.jobEnded(job, new Date().toISOString(), facts);
  }

  /** The job's status as seen at `at` (now when not given). */
  jobStatus(jobId: string, status: string, at: string = new Date().toISOString()): void {
    const job = this.progress.jobs.find((j) => j.jobId === jobId);
    if (job) {
      job.status = status;
      job.statusAt = at;
    }
    this.progress.lastStatus = status;
    this.touch();
  }

  waited(outcome: JobWaitOutcome): void {
    if (this.current?.jobId === outcome.job.id) this.current = null;
    this.waitsEnded.add(outcome.job.id);
    this.progress.polls += outcome.polls;
    this.progress.claims += outcome.claims;
    this.progress.interrupts += outcome.interrupts;
    this.settled(outcome.job.id, outcome.job.status, outcome.job.error_message ?? undefined);
  }

  /**
   * The job's last status in this workflow: its wait has ended, so nothing will change it any more. Null: the job
   * could not be read at the end, so it keeps the status last seen.
   */
  settled(jobId: string, status: string | null, error?: string): void {
    if (status !== null) this.jobStatus(jobId, status);
    const job = this.progress.jobs.find((j) => j.jobId === jobId);
    if (job) job.live = false;
    // A completed job whose results are read ends its lineage then (jobDone); any other ends it now.
    if (job && (status !== 'completed' || !READS_TABLES.has(job.role)))
      this.lineage.jobEnded(job, new Date().toISOString(), undefined, error);
  }

  /** Records a job that held one status longer than the caller's bound: progress, memo and log. */
  stuck(jobId: string, stuck: { status: string; forMs: number }): void {
    this.progress.stuck = { jobId, ...stuck, at: new Date().toISOString() };
    this.jobStatus(jobId, stuck.status);
    upsertMemo({ stuck: this.progress.stuck });
    log.warn('job has held one status longer than maxStatusDurationMs', { jobId, ...stuck });
  }

  /** Runs the workflow body; records a failure's message in the progress before it propagates. */
  async run<T>(body: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await body();
    } catch (err) {
      this.progress.error = err instanceof Error ? err.message : String(err);
      const cancelled = isCancellation(err);
      this.stage(cancelled ? 'cancelled' : 'failed');
      const now = new Date().toISOString();
      const failed = { error: this.progress.error, type: failureType(err) };
      await this.lineage.end(cancelled ? 'ABORT' : 'FAIL', now, this.progress.jobs, this.facts, failed);
      throw err;
    }
    this.stage('done');
    const v = this.failedVerdict;
    await this.lineage.end(v ? 'FAIL' : 'COMPLETE', new Date().toISOString(), this.progress.jobs, this.facts, v);
    return result;
  }
}
