/**
 * The bound's submitter shape (`--bound 3`): a per-target FIFO submitter instead of a lock execution. Each pipeline
 * asks a long-lived workflow of its table group (`bound-submitter/<target>`, signal-with-start) to submit its
 * profiling run, and waits for the job id by signal. The submitter sends what is queued, one batch per activity
 * (every request that arrived while the previous batch was in flight), answers each requester, and ends once idle.
 * One at a time per target, as a lock serialises, but with no waiter asking again: what a hand-off costs when the
 * next submission is handed to the one process that serialises them. A measure of the design weighed in issue 40, not
 * the product's code: exactly-once bookkeeping (phases, lookups) is left out, as the other bound shapes leave it,
 * except with `recorded` (`--bound 4`): the batch then signals the submitter before each send leaves, the one record
 * that a send's exactly-once needs on the serial path (a retry must know the send may have left, and since when).
 */
import {
  condition,
  continueAsNew,
  defineSignal,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';

export interface SubmitRequest {
  requester: string;
  target: string;
  /** Whether the batch records each send at the submitter before it leaves (`--bound 4`). */
  recorded?: boolean;
  /** What it submits: a profiling run of its table group, @default, or a test run of its suite (`--bound 7`). */
  kind?: 'profiling' | 'tests';
}

export const submitSignal = defineSignal<[SubmitRequest]>('submit');
export const submittedSignal = defineSignal<[{ jobId: string }]>('submitted');
/** The batch's record of a send about to leave: what a retry would read to look for it rather than send again. */
export const sendingSignal = defineSignal<[{ index: number; at: number }]>('sending');

const { submitBatch } = proxyActivities<{
  submitBatch(target: string, count: number, recorded: boolean, kind: 'profiling' | 'tests'): Promise<string[]>;
}>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
});

/** How long the submitter waits for another request before it ends (the next one starts it again). */
const IDLE = '5 seconds';

export async function boundSubmitter(carried: SubmitRequest[] = []): Promise<void> {
  const queue = [...carried];
  setHandler(submitSignal, (r) => void queue.push(r));
  // Nothing here retries a batch, so nothing reads the record: what is measured is its cost, the signal (a history
  // event and a workflow task) awaited before each send.
  setHandler(sendingSignal, () => undefined);
  for (;;) {
    // Checked again after the timeout: a request whose signal came in the activation that fired the timer is queued
    // by its handler, yet the race may still say "timed out".
    if (!(await condition(() => queue.length > 0, IDLE)) && queue.length === 0) return;
    const batch = queue.splice(0, queue.length);
    const first = batch[0]!;
    const jobs = await submitBatch(first.target, batch.length, first.recorded === true, first.kind ?? 'profiling');
    await Promise.all(
      batch.map((r, i) => getExternalWorkflowHandle(r.requester).signal(submittedSignal, { jobId: jobs[i]! })),
    );
    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > 5_000) await continueAsNew(queue);
  }
}

/** A requester's side: asks the target's submitter (through `ask`, an activity) and waits for its job id. */
export async function submittedThrough(
  ask: (r: SubmitRequest) => Promise<unknown>,
  target: string,
  recorded: boolean,
  kind: SubmitRequest['kind'] = 'profiling',
): Promise<string> {
  let jobId: string | undefined;
  setHandler(submittedSignal, (r) => void (jobId = r.jobId));
  await ask({ requester: workflowInfo().workflowId, target, recorded, kind });
  await condition(() => jobId !== undefined);
  return jobId!;
}
