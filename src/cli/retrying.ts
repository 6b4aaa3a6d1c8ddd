/**
 * Why a running workflow has not moved on when a call of it is being retried (`status`'s `retrying` line): its own
 * activity's last failure, or, while it submits or runs an order, that of its target's submitter. The submitter is
 * another workflow (`dataops-submit/…`, `dataops-order/…`); it sends the write and retries it through an outage, up to
 * the run's outageToleranceMs (6 h by default), while the run itself reads `submitting profiling` and no error.
 */
import type { WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import type { JobKind } from '../contract/job-kinds.js';
import { orderSubmitterId, submitterId, type Deployments } from '../exactly-once/messages.js';

/** The kind of job each role's stage (`submitting <role>`) submits, and the input field that names its target. */
const SUBMITTING: Record<string, { kind: JobKind; target: 'tableGroupId' | 'testSuiteId' }> = {
  profiling: { kind: 'profiling', target: 'tableGroupId' },
  test_run: { kind: 'tests', target: 'testSuiteId' },
  generation: { kind: 'generation', target: 'testSuiteId' },
};

interface StartInput {
  tableGroupId?: string;
  testSuiteId?: string;
  order?: { kitchen: string; recipe: string; variation: string };
  kitchen?: string;
  recipe?: string;
  variation?: string;
}

/** The first pending activity that has failed and is being retried: `<type> attempt <n>: <its last failure>`. */
export function lastFailure(d: WorkflowExecutionDescription): string | null {
  for (const a of d.raw.pendingActivities ?? [])
    if (a.lastFailure?.message)
      return `${a.activityType?.name ?? 'activity'} attempt ${a.attempt}: ${a.lastFailure.message}`;
  return null;
}

/**
 * The submitter a run on `taskQueue` at `stage` waits on, from its start input (read only at a stage that has one)
 * and the deployment it writes to; null at any other stage, or without an input that names its target.
 */
export async function submitterFor(
  taskQueue: string,
  deployments: Deployments,
  stage: string,
  readInput: () => Promise<unknown>,
): Promise<string | null> {
  const role = /^submitting (.+)$/.exec(stage)?.[1];
  const submitting = role === undefined ? undefined : SUBMITTING[role];
  if (!submitting && stage !== 'running order') return null;
  const input = (await readInput()) as StartInput | undefined;
  if (!input) return null;
  if (submitting) {
    const target = input[submitting.target];
    return target ? submitterId(taskQueue, deployments.jobs, submitting.kind, target) : null;
  }
  const order = input.order ?? input;
  return order.kitchen && order.recipe && order.variation
    ? orderSubmitterId(taskQueue, deployments.orders, order as Required<typeof order>)
    : null;
}

/** The input a workflow was started with: the first event of its history (one event read), or undefined. */
export async function startInput(handle: WorkflowHandle): Promise<unknown> {
  const { client } = handle;
  const page = await client.workflowService
    .getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId: handle.workflowId },
      maximumPageSize: 1,
    })
    .catch(() => undefined);
  const payload = page?.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return payload ? client.options.loadedDataConverter.payloadConverter.fromPayload(payload) : undefined;
}

/** A failure being retried, and the submitter it is retried in (null: in the run itself). */
export interface Retrying {
  failure: string;
  submitter: string | null;
}

/**
 * What is being retried for the run `d` at `stage`, or null; its start input is read only when a submitter is asked,
 * and its submitter only when the `deployments` it writes to are known.
 */
export async function retrying(
  handle: WorkflowHandle,
  d: WorkflowExecutionDescription,
  stage: string | undefined,
  deployments: Deployments | undefined,
  input: () => Promise<unknown> = () => startInput(handle),
): Promise<Retrying | null> {
  const own = lastFailure(d);
  if (own) return { failure: own, submitter: null };
  if (!stage || !deployments) return null;
  try {
    const id = await submitterFor(d.taskQueue, deployments, stage, input);
    const submitter = id ? await handle.client.getHandle(id).describe() : undefined;
    const theirs = submitter?.status.name === 'RUNNING' ? lastFailure(submitter) : null;
    return theirs ? { failure: theirs, submitter: id } : null;
  } catch {
    return null; // a line that helps, never a reason for `status` or `--follow` to fail
  }
}

/** As `status` shows it: the failure, and where it is retried when not in the run. */
export const retryingText = (r: Retrying | null): string | null =>
  r && `${r.failure}${r.submitter ? ` (in its submitter ${r.submitter})` : ''}`;
