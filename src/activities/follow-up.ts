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
import { note } from './heartbeats.js';
import { freshProgress, observe, untilNextPoll } from './wait-progress.js';

/**
 * Polls `job` until it is terminal or `forMs` has passed, heartbeating `keepAlive` (the profiling wait's own details,
 * so that a retried attempt resumes as it would have). Returns the job as last seen, whether it `ended`, and what the
 * polls saw; undefined when it was never read. It stops short when the window ends, when a read fails, and when
 * `call.signal` ends it before the wait's deadline; the workflow then waits for the job itself.
 */
export async function followUpInline(
  client: ServiceClient,
  job: JobSnapshot,
  forMs: number,
  pollMs: number,
  keepAlive: WaitProgress,
  call: { signal: AbortSignal; sleep: (ms: number) => Promise<void> },
): Promise<{ job: Job; ended: boolean; progress: WaitProgress } | undefined> {
  const context = Context.current();
  const deadline = Date.now() + forMs;
  const progress = freshProgress();
  let last: Job | undefined;
  try {
    for (;;) {
      const polledAt = Date.now();
      last = await client.jobs.get(job.id, { signal: call.signal });
      observe(progress, last);
      note(keepAlive);
      if (isTerminalJobStatus(last.status)) return { job: last, ended: true, progress };
      const next = untilNextPoll(polledAt, pollMs);
      if (Date.now() + next > deadline) return { job: last, ended: false, progress };
      await call.sleep(next);
    }
  } catch (err) {
    if (context.cancellationSignal.aborted) throw err;
    log.warn('could not follow the generation job; the workflow will', { jobId: job.id, error: String(err) });
    return last && { job: last, ended: false, progress };
  }
}
