/**
 * Typed starters for TypeScript callers (`dataops-temporal/client`): each workflow of the contract by its name, its
 * input and its result, on a Temporal `Client` the caller owns. The input is checked against the contract's schema
 * before anything starts, with the worker's own rules, so a wrong field is named here rather than in a failed run.
 * Queries and updates (`progressQuery`, `approveUpdate`, …) and every input and result type come with it.
 */
import type { Client, WorkflowHandle, WorkflowStartOptions } from '@temporalio/client';
import {
  DEFAULT_TASK_QUEUE,
  WORKFLOW_INPUTS,
  WORKFLOW_TYPES,
  checkInput,
  invalidInputMessage,
  type Workflows,
  type WorkflowType,
} from '../contract/index.js';

export * from '../contract/index.js';

/** A workflow of the contract by its own name (`Workflows` gives its input and result). */
export type WorkflowName = WorkflowType;

/** A handle whose `result()` is the workflow's result type. */
export type DataopsHandle<T extends WorkflowName> = WorkflowHandle<
  (input: Workflows[T][0]) => Promise<Workflows[T][1]>
>;

/** What a caller sets when starting: the workflow id it chooses, and the task queue (the worker's) if not the default. */
export type StartOptions = Omit<WorkflowStartOptions, 'args' | 'taskQueue' | 'workflowId'> & {
  workflowId: string;
  /** @default DEFAULT_TASK_QUEUE */
  taskQueue?: string;
};

/** A refused input, before anything was started: every problem, one `path: message` each. */
export class InvalidWorkflowInput extends Error {
  override readonly name = 'InvalidWorkflowInput';
  constructor(
    readonly workflow: WorkflowName,
    readonly problems: string[],
  ) {
    super(invalidInputMessage(workflow, problems));
  }
}

/** Starts workflow `type` with `input`, checked first (InvalidWorkflowInput names every problem). */
export async function startDataops<T extends WorkflowName>(
  client: Client,
  type: T,
  input: Workflows[T][0],
  options: StartOptions,
): Promise<DataopsHandle<T>> {
  const checked = checkInput(WORKFLOW_INPUTS[type], input);
  if (!checked.ok) throw new InvalidWorkflowInput(type, checked.problems);
  const { taskQueue = DEFAULT_TASK_QUEUE, ...rest } = options;
  return client.workflow.start(WORKFLOW_TYPES[type], { ...rest, taskQueue, args: [input] }) as Promise<
    DataopsHandle<T>
  >;
}

/** Starts workflow `type` and waits for its result. */
export async function executeDataops<T extends WorkflowName>(
  client: Client,
  type: T,
  input: Workflows[T][0],
  options: StartOptions,
): Promise<Workflows[T][1]> {
  return (await startDataops(client, type, input, options)).result();
}
