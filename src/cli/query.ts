/**
 * Queries the CLI sends, bounded in time. A query waits for a worker to answer it, and with none polling the task
 * queue the server gives up only after 30 s: `status`, `--follow` and `promote`'s wait for the preview would each sit
 * that long without a word. Bounded, they can say that no worker answers, and name the task queue.
 */
import type { WorkflowHandle } from '@temporalio/client';

/** How long one query may wait for a worker. */
export const QUERY_WAIT_MS = 5_000;

/** Runs `ask` (queries of `handle`'s workflow) with a deadline of QUERY_WAIT_MS; it fails when that passes. */
export const askWorker = <T>(handle: WorkflowHandle, ask: () => Promise<T>): Promise<T> =>
  handle.client.withDeadline(Date.now() + QUERY_WAIT_MS, ask);
