/**
 * What a wait has seen of its job so far (heartbeated as `WaitProgress`): a fresh record, and one poll recorded; and
 * when the next poll is due.
 */
import { log } from '@temporalio/activity';
import type { Job } from '../api/index.js';
import type { WaitProgress } from '../contract/types.js';

const MAX_CLAIMS_KEPT = 50;

/** A wait that has not polled yet. */
export function freshProgress(): WaitProgress {
  return {
    lastStatus: null,
    claimsSeen: [],
    interrupts: 0,
    polls: 0,
    statusSince: null,
    reportedStatus: null,
    reportedAt: null,
    reports: 0,
  };
}

/** Records one poll: counts, claims, interrupts, since when the status holds; logs each status change once. */
export function observe(progress: WaitProgress, job: Job): boolean {
  progress.polls++;
  const changed = job.status !== progress.lastStatus;
  if (changed) {
    log.info('job status changed', { jobId: job.id, from: progress.lastStatus, to: job.status });
    if (job.status === 'interrupted') progress.interrupts++;
    progress.lastStatus = job.status;
    progress.statusSince = Date.now();
  } else if (progress.statusSince === null) progress.statusSince = Date.now();
  if (job.claimed_at && !progress.claimsSeen.includes(job.claimed_at)) {
    progress.claimsSeen.push(job.claimed_at);
    if (progress.claimsSeen.length > MAX_CLAIMS_KEPT) progress.claimsSeen.shift();
  }
  return changed;
}

/**
 * How long to sleep after a poll that started at `polledAt` so that polls start every `interval`: a poll interval
 * means that, not the interval plus each answer's time, which on a loaded service or worker would add to every
 * detection. Never less than half an interval after an answer, so a slow service is not polled back to back.
 */
export const untilNextPoll = (polledAt: number, interval: number, now = Date.now()): number =>
  Math.max(interval - (now - polledAt), Math.ceil(interval / 2));
