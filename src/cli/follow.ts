/** Live progress of a running workflow: one rewritten line on a terminal, plain lines otherwise. */
import { setTimeout as delay } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { AWAITING_APPROVAL, progressQuery, type Progress, type WaitProgress } from '../contract/index.js';
import { formatDecisionAsked } from './format.js';
import { askPreview, askWorker, askedOnGrowth } from './query.js';
import { retrying, startInput } from './retrying.js';
import type { Deployments } from '../exactly-once/messages.js';

interface Live {
  stage: string;
  status: string | null;
  polls: number;
  interrupts: number;
  elapsedS: number;
  /** A failure being retried (the run's own call, or its submitter's), which the stage alone does not show. */
  retrying: string | null;
}

/** The details a waiting activity heartbeats: its counts so far and the status it last saw. */
type Beat = Pick<WaitProgress, 'lastStatus' | 'polls'> & Partial<Pick<WaitProgress, 'interrupts'>>;

/**
 * Progress from the query, made live with the waiting activity's heartbeat details (status, polls, interrupts), which
 * cost no history. The query's counts already hold the running wait's last report (`currentWait`); of the two, the
 * one with more polls is the newer (the server keeps heartbeats throttled, so either can be), and it alone counts.
 *
 * `progressAt` asks the query (askedOnGrowth: again only once the history has grown), so that a promotion waiting a day
 * for its approval, or a job wait between two status reports, is followed by describes alone.
 */
export async function liveProgress(
  handle: WorkflowHandle,
  input?: () => Promise<unknown>,
  progressAt: (historyLength: number) => Promise<Progress> = () => handle.query(progressQuery),
  deployments?: Deployments,
): Promise<{ live: Live; progress: Progress; closed: boolean }> {
  const description = await handle.describe();
  const progress = await progressAt(description.historyLength);
  let beat: Beat | undefined;
  for (const activity of description.raw.pendingActivities ?? []) {
    const payload = activity.heartbeatDetails?.payloads?.[0];
    const details = payload ? defaultPayloadConverter.fromPayload<Partial<Beat> | null>(payload) : null;
    // Only a wait's details count (a submission's keep-alive carries none); one wait runs at a time.
    if (typeof details?.polls === 'number') beat = details as Beat;
  }
  // Progress from workers before currentWait existed has no such field.
  const reported = (progress as Partial<Progress>).currentWait ?? null;
  let status = statusFor(progress);
  let polls = progress.polls;
  let interrupts = progress.interrupts;
  if (beat && beat.polls >= (reported?.polls ?? 0)) {
    polls += beat.polls - (reported?.polls ?? 0);
    interrupts += (beat.interrupts ?? 0) - (reported?.interrupts ?? 0);
    if (beat.lastStatus) status = beat.lastStatus;
  }
  const closed = description.status.name !== 'RUNNING';
  return {
    progress,
    closed,
    live: {
      stage: beat && beat.polls > 0 ? waitingStage(progress.stage) : progress.stage,
      status,
      polls,
      interrupts,
      retrying: closed
        ? null
        : ((await retrying(handle, description, progress.stage, deployments, input))?.failure ?? null),
      elapsedS: Math.round((Date.now() - Date.parse(progress.startedAt)) / 1000),
    },
  };
}

/**
 * The status to show beside the workflow's stage. The query's `lastStatus` is any job's: between a job's end and the
 * next job's first poll it is still the ended one's, which read as "waiting for test_run · job completed". So a
 * stage about one role (`submitting <role>`, `waiting for <role>`) shows only the status of that role's newest job,
 * and none before it has one.
 */
function statusFor(progress: Progress): string | null {
  const role = /^(?:submitting|waiting for) (.+)$/.exec(progress.stage)?.[1];
  if (role === undefined) return progress.lastStatus;
  const jobs = progress.jobs ?? [];
  return jobs.findLast((j) => j.role === role)?.status ?? null;
}

/** A wait that polls a job has submitted it, whatever stage the workflow has recorded yet (a run of an earlier build). */
const waitingStage = (stage: string): string =>
  stage.startsWith('submitting ') ? `waiting for ${stage.slice('submitting '.length)}` : stage;

export function describeLive(l: Live): string {
  return `[${String(l.elapsedS).padStart(4)} s] ${l.stage}${l.status ? ` · job ${l.status}` : ''} · polls ${l.polls}${l.interrupts ? ` · interrupts ${l.interrupts}` : ''}${l.retrying ? ` · retrying ${l.retrying}` : ''}`;
}

/** Shows progress until the workflow closes (and what is being retried: in its submitter, given its `deployments`). */
export async function follow(
  handle: WorkflowHandle,
  out: NodeJS.WriteStream = process.stdout,
  intervalMs = 1_000,
  deployments?: Deployments,
): Promise<void> {
  let last = '';
  const shown = new Set<string>(); // the jobs and previews printed
  let asked: string | undefined; // the progress update a preview was last read at
  const progressAt = askedOnGrowth(() => handle.query(progressQuery));
  /** Prints lines above the live one (which a terminal then rewrites below them). */
  const above = (text: string) => {
    out.write(`${out.isTTY && last ? '\r\x1b[2K' : ''}${text}\n`);
    if (out.isTTY) last = '';
  };
  let input: Promise<unknown> | undefined; // read once, when a submitter is first asked
  const startedWith = () => (input ??= startInput(handle));
  for (;;) {
    let line: string;
    let closed: boolean;
    try {
      const r = await askWorker(handle, () => liveProgress(handle, startedWith, progressAt, deployments));
      line = describeLive(r.live);
      closed = r.closed;
      // Each job's page in the service's UI, once, as soon as the job is known.
      for (const job of r.progress.jobs)
        if (job.url && !shown.has(job.jobId)) {
          shown.add(job.jobId);
          above(`${job.role} job ${job.jobId}: ${job.url}`);
        }
      // A promotion waiting for its decision: its preview and the commands that make it, once per preview (a target
      // that changed before the apply asks again, with a new one). Read when the stage is entered, not every second.
      if (r.progress.stage === AWAITING_APPROVAL && r.progress.updatedAt !== asked) {
        const preview = await askPreview(handle);
        if (preview) asked = r.progress.updatedAt;
        if (preview && !shown.has(preview.previewId)) {
          shown.add(preview.previewId);
          above(formatDecisionAsked(handle.workflowId, preview));
        }
      }
    } catch {
      // Not queryable yet (no worker has run it), or just closed: keep the last line, or say what it waits for.
      const d = await handle.describe().catch(() => undefined);
      closed = d !== undefined && d.status.name !== 'RUNNING';
      line = last || (d && !closed ? `[waiting] no worker has answered yet (task queue ${d.taskQueue})` : last);
    }
    if (line !== last) {
      if (out.isTTY) out.write(`\r\x1b[2K${line}`);
      else out.write(`${line}\n`);
      last = line;
    }
    if (closed) break;
    await delay(intervalMs);
  }
  if (out.isTTY) out.write('\n');
}
