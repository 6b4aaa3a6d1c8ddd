/**
 * The CLI's waits on a worker, each saying when none answers. A query waits for a worker to answer it, and with none
 * polling the task queue the server gives up only after 30 s: `status`, `--follow` and `promote`'s wait for the
 * preview would each sit that long without a word. Bounded, they can say that no worker answers, and name the task
 * queue. A wait for a workflow's result has no bound (a run takes as long as it takes), so it says once when no worker
 * has taken the run up at all; a decision (`approve`, `reject`) says once when no worker has answered it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import { previewQuery, type PromotionPreview } from '../contract/index.js';

/** How long one query may wait for a worker. */
export const QUERY_WAIT_MS = 5_000;

/** Runs `ask` (queries of `handle`'s workflow) with a deadline of QUERY_WAIT_MS; it fails when that passes. */
export const askWorker = <T>(handle: WorkflowHandle, ask: () => Promise<T>): Promise<T> =>
  handle.client.withDeadline(Date.now() + QUERY_WAIT_MS, ask);

/** A promotion's current preview, as its worker answers within QUERY_WAIT_MS; null when it has none, or none answers. */
export const askPreview = (handle: WorkflowHandle): Promise<PromotionPreview | null> =>
  askWorker(handle, () => handle.query(previewQuery)).catch(() => null);

/**
 * A query of a workflow, asked again only once its history has grown past the length its last answer was read at
 * (`historyLength`, from a describe): the answer is the workflow's state, which only new events change, and each query
 * is a billed action on Temporal Cloud, where a describe is not. A failed ask is not kept: the next call asks again.
 */
export function askedOnGrowth<T>(ask: () => Promise<T>): (historyLength: number) => Promise<T> {
  let last: { at: number; answer: T } | undefined;
  return async (historyLength) => {
    if (last?.at !== historyLength) last = { at: historyLength, answer: await ask() };
    return last.answer;
  };
}

/**
 * Polls `handle`'s promotion until it has a preview, surfacing the failure if it ends first; null if it ended without
 * one (decided or timed out before this saw its preview: its result says how); gives up after `waitMs`, by the clock.
 * It looks with a describe every 500 ms and asks the worker only when the history has grown (askedOnGrowth): an export
 * of a large suite, which takes minutes, costs a query per step of the workflow, not two a second.
 */
export async function waitForPreview(
  handle: WorkflowHandle,
  waitMs: number,
  taskQueue: string,
): Promise<PromotionPreview | null> {
  const deadline = Date.now() + waitMs;
  const previewAt = askedOnGrowth(() => askWorker(handle, () => handle.query(previewQuery)));
  while (Date.now() < deadline) {
    const d = await handle.describe();
    if (d.status.name !== 'RUNNING') {
      await handle.result(); // surfaces the failure
      return null; // a preview now would ask for a decision that can no longer be made
    }
    // No answer (no worker within QUERY_WAIT_MS) is asked again next time, whatever the history.
    const preview = await previewAt(d.historyLength).catch(() => null);
    if (preview) return preview;
    await delay(500);
  }
  throw new Error(
    `no preview within --preview-wait ${Math.round(waitMs / 1000)} s (is a worker polling task queue ${taskQueue}?); ` +
      `the promotion goes on: dataops status ${handle.workflowId}`,
  );
}

/** How long a run waited for may go without any worker taking it up before the CLI says so. */
export const FIRST_TASK_WAIT_MS = 10_000;

/** A running workflow that no worker has taken up: two events (started, its first workflow task scheduled). */
export const noWorkerYet = (d: WorkflowExecutionDescription): boolean =>
  d.status.name === 'RUNNING' && d.historyLength <= 2;

/**
 * `answer`, saying once on `err` what `stalled` makes of the run's description when it has not come within `afterMs`
 * (nothing, when it returns undefined): with no worker on the run's task queue (a worker not started, another
 * --task-queue or namespace) the wait would be silent for ever.
 */
async function sayingWhenStalled<T>(
  handle: WorkflowHandle,
  answer: () => Promise<T>,
  err: NodeJS.WritableStream,
  stalled: (d: WorkflowExecutionDescription) => string | undefined,
  afterMs: number,
): Promise<T> {
  const settled = new AbortController();
  const look = async () => {
    await delay(afterMs, undefined, { signal: settled.signal });
    const d = await handle.describe();
    const said = settled.signal.aborted ? undefined : stalled(d);
    if (said) err.write(`${said}\n`);
  };
  // Aborted once the answer is in, or a describe that failed: the wait itself says what went wrong.
  void look().catch(() => undefined);
  try {
    return await answer();
  } finally {
    settled.abort();
  }
}

/** `handle.result()`, saying once when no worker has taken up the run within `afterMs`. */
export const resultOrNoWorker = (
  handle: WorkflowHandle,
  err: NodeJS.WritableStream,
  afterMs = FIRST_TASK_WAIT_MS,
): Promise<unknown> =>
  sayingWhenStalled(
    handle,
    () => handle.result(),
    err,
    (d) =>
      noWorkerYet(d)
        ? `warning: no worker has taken up ${handle.workflowId} in ${afterMs / 1000} s: is one polling task queue ` +
          `${d.taskQueue} of this namespace? It runs once one does (Ctrl+C leaves it waiting; dataops status ` +
          `${handle.workflowId})`
        : undefined,
    afterMs,
  );

/**
 * A decision's answer (an update of a running workflow), saying once when none has come within `afterMs`: only a
 * worker answers it, and the server holds it for the next one only while the sender waits.
 */
export const decisionOrNoWorker = <T>(
  handle: WorkflowHandle,
  decide: () => Promise<T>,
  err: NodeJS.WritableStream,
  afterMs = FIRST_TASK_WAIT_MS,
): Promise<T> =>
  sayingWhenStalled(
    handle,
    decide,
    err,
    (d) =>
      d.status.name === 'RUNNING'
        ? `warning: no worker has answered the decision for ${handle.workflowId} in ${afterMs / 1000} s: is one ` +
          `polling task queue ${d.taskQueue} of this namespace? The server holds it for the next worker while this ` +
          `waits (Ctrl+C stops waiting and may drop it; dataops status ${handle.workflowId} shows what was decided)`
        : undefined,
    afterMs,
  );
