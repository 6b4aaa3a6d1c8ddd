/**
 * A workflow's lineage: at each transition of its run (start, end) and of its remote jobs (known, ended), it calls the
 * local activity `emitLineage`, which queues the OpenLineage events and returns (src/activities/lineage.ts). Only when
 * the worker sends lineage (its input check says so): otherwise nothing is called and history is as without it. Each
 * call is one marker in history. A failed call is logged and never fails the workflow.
 */
import { CancellationScope, log, workflowInfo } from '@temporalio/workflow';
import { LINEAGE_EMIT } from '../contract/activity-options.js';
import {
  READS_TABLES,
  type LineageEventType,
  type LineageFacts,
  type LineageTransition,
  type LineageWorkflow,
} from '../contract/lineage.js';
import { ourLocalActivities } from './ours.js';

/** The input fields a workflow's lineage names its target by. */
const TARGET_FIELDS = ['tableGroupId', 'testSuiteId', 'kitchen', 'recipe', 'variation', 'targetTestSuiteId'] as const;

/** What a workflow's input names as its target (a promotion's source suite under `source`). */
export function lineageTarget(input: unknown): Record<string, string> {
  const i = (input ?? {}) as Record<string, unknown>;
  const target: Record<string, string> = {};
  for (const f of TARGET_FIELDS) if (typeof i[f] === 'string') target[f] = i[f];
  const order = i.order as Record<string, unknown> | undefined;
  if (order && typeof order === 'object')
    for (const f of ['kitchen', 'recipe', 'variation'] as const)
      if (typeof order[f] === 'string' && !target[f]) target[f] = order[f];
  const source = i.source as Record<string, unknown> | undefined;
  if (source && typeof source.testSuiteId === 'string') target.sourceTestSuiteId = source.testSuiteId;
  return target;
}

/** A job's lineage end by its last status: canceled is ABORT, error FAIL, completed COMPLETE (else none yet). */
function endOf(status: string | null): LineageEventType | undefined {
  if (status === 'completed') return 'COMPLETE';
  if (status === 'error') return 'FAIL';
  if (status === 'canceled' || status === 'cancel_requested') return 'ABORT';
  return undefined;
}

/** How a run failed: its message and failure type (contract/failures.json), on FAIL only. */
export interface Failed {
  error?: string | undefined;
  type?: string | undefined;
}

/** One transition of the run (no `job`) or of one of its jobs; what failed only on FAIL. */
function transition(
  eventType: LineageEventType,
  at: string,
  workflow: LineageWorkflow,
  job?: LineageTransition['job'],
  facts?: LineageFacts,
  failed: Failed = {},
): LineageTransition {
  return {
    eventType,
    at,
    workflow,
    ...(job ? { job } : {}),
    ...(facts ? { facts } : {}),
    ...(failed.error && eventType === 'FAIL' ? { error: failed.error } : {}),
    ...(failed.type && eventType === 'FAIL' ? { failureType: failed.type } : {}),
  };
}

interface JobSeen {
  role: string;
  jobId: string;
  status: string | null;
  url?: string;
}

export class WorkflowLineage {
  /** Set by the input check: whether the worker sends lineage. */
  enabled = false;
  profile = 'default';
  private workflow: LineageWorkflow | null = null;
  private readonly pending: Promise<void>[] = [];
  private readonly ended = new Set<string>();

  constructor(private readonly workflowType: string) {}

  /** The run has started on `input` (its checked input). */
  started(input: unknown, at: string): void {
    const info = workflowInfo();
    this.workflow = {
      workflowType: this.workflowType,
      workflowId: info.workflowId,
      runId: info.runId,
      target: lineageTarget(input),
    };
    const profile = (input as { profile?: unknown } | null)?.profile;
    if (typeof profile === 'string') this.profile = profile;
    this.emit([{ eventType: 'START', at, workflow: this.workflow }]);
  }

  /** A remote job of the run is known (submitted, found). */
  jobStarted(job: JobSeen, at: string): void {
    if (!this.workflow) return;
    this.emit([{ eventType: 'START', at, workflow: this.workflow, job: this.ref(job) }]);
  }

  /** A remote job has ended, with what it produced; a job ended once is not ended again. */
  jobEnded(job: JobSeen, at: string, facts?: LineageFacts, error?: string): void {
    const eventType = endOf(job.status);
    if (!this.workflow || !eventType || this.ended.has(job.jobId)) return;
    this.ended.add(job.jobId);
    this.emit([transition(eventType, at, this.workflow, this.ref(job), facts, { error })]);
  }

  /**
   * The run has ended: its jobs not ended yet end by their last status, then the run itself. Awaits every call
   * (in a scope a cancellation does not reach, so an ABORT is still sent).
   */
  async end(
    eventType: 'COMPLETE' | 'FAIL' | 'ABORT',
    at: string,
    jobs: JobSeen[],
    facts?: LineageFacts,
    failed: Failed = {},
  ): Promise<void> {
    if (!this.enabled || !this.workflow) return;
    const w = this.workflow;
    const transitions: LineageTransition[] = [];
    for (const job of jobs) {
      const jobEnd = endOf(job.status) ?? (eventType === 'COMPLETE' ? undefined : eventType);
      if (!jobEnd || this.ended.has(job.jobId)) continue;
      this.ended.add(job.jobId);
      transitions.push(transition(jobEnd, at, w, this.ref(job)));
    }
    const inputJobs = jobs
      .filter((j) => j.status === 'completed' && READS_TABLES.has(j.role))
      .map((j) => ({ role: j.role, jobId: j.jobId }));
    transitions.push({
      ...transition(eventType, at, w, undefined, facts, failed),
      ...(inputJobs.length ? { inputJobs } : {}),
    });
    await CancellationScope.nonCancellable(async () => {
      this.emit(transitions);
      await Promise.all(this.pending);
    });
  }

  private ref(job: JobSeen): NonNullable<LineageTransition['job']> {
    return { role: job.role, jobId: job.jobId, ...(job.url ? { url: job.url } : {}) };
  }

  private emit(transitions: LineageTransition[]): void {
    if (!this.enabled) return;
    this.pending.push(
      ourLocalActivities(LINEAGE_EMIT)
        .emitLineage({ profile: this.profile, transitions })
        .catch((err: unknown) => log.warn('lineage not emitted', { error: (err as Error).message })),
    );
  }
}
