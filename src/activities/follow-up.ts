/**
 * Following the test-generation job TestGen queues after a table group's first completed profiling run, inside the
 * profiling wait, for a short while. A follow-up that ends within it costs the workflow nothing more: no wait
 * activity, no workflow task, no status report (11 history events with its stage update). One that outlasts it, or
 * that cannot be read, is left to the workflow's own wait, as before: this is best effort and never fails the wait.
 * A cancel that arrives meanwhile ends the wait; the workflow then cancels the follow-up itself (follow.ts).
 */
import { Context, log } from '@temporalio/activity';
import { isTerminalJobStatus, type Job, type ServiceClient } from '../api/index.js';
import type { JobSnapshot, WaitProgress } from '../contract/types.js';
import { beat } from './keep-alive.js';
import { freshProgress, observe } from './wait-progress.js';

/**
 * Polls `job` until it is terminal or `forMs` has passed, heartbeating `keepAlive` (the profiling wait's own details,
 * so that a retried attempt resumes as it would have). Returns the job as it ended and what the polls saw, or
 * undefined when it did not end in time, could not be read, or `call.signal` ended it short of the wait's deadline.
 */
export async function followUpInline(
  client: ServiceClient,
  job: JobSnapshot,
  forMs: number,
  pollMs: number,
  keepAlive: WaitProgress,
  call: { signal: AbortSignal; sleep: (ms: number) => Promise<void> },
): Promise<{ job: Job; progress: WaitProgress } | undefined> {
  const context = Context.current();
  const deadline = Date.now() + forMs;
  const progress = freshProgress();
  try {
    for (;;) {
      const seen = await client.jobs.get(job.id, { signal: call.signal });
      observe(progress, seen);
      beat(keepAlive);
      if (isTerminalJobStatus(seen.status)) return { job: seen, progress };
      if (Date.now() + pollMs > deadline) return undefined;
      await call.sleep(pollMs);
    }
  } catch (err) {
    if (context.cancellationSignal.aborted) throw err;
    log.warn('could not follow the generation job; the workflow will', { jobId: job.id, error: String(err) });
    return undefined;
  }
}
