/** How a workflow ended, classified: what the end-to-end and peer tests assert on. */
import { CancelledFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';

export type Outcome = 'ok' | 'failed' | 'cancelled';

/** The end of a workflow, classified; the root failure's type and message when it failed. */
export async function ending<T>(handle: WorkflowHandle): Promise<{ outcome: Outcome; result?: T; failure?: string }> {
  try {
    return { outcome: 'ok', result: (await handle.result()) as T };
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    if (err.cause instanceof CancelledFailure) return { outcome: 'cancelled' };
    let e: unknown = err.cause;
    while (e instanceof Error && e.cause instanceof Error) e = e.cause;
    const type = (e as { type?: string }).type ?? (e as Error).name;
    return { outcome: 'failed', failure: `${type}: ${(e as Error).message}` };
  }
}
