/**
 * Typed starters for TypeScript callers (`dataops-temporal/client`): each workflow of the contract by its name, its
 * input and its result, on a Temporal `Client` the caller owns. The input is checked against the contract's schema
 * before anything starts, with the worker's own rules, so a wrong field is named here rather than in a failed run.
 * Queries and updates (`progressQuery`, `approveUpdate`, …) and every input and result type come with it.
 */
import type { Client, WorkflowHandle, WorkflowStartOptions } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import {
  DEFAULT_TASK_QUEUE,
  WORKFLOW_INPUTS,
  WORKFLOW_TYPES,
  checkInput,
  invalidInputMessage,
  searchAttributesAtStart,
  startWithSearchAttributes,
  type DataopsWorkflow,
  type Workflows,
  type WorkflowType,
} from '../contract/index.js';

export * from '../contract/index.js';

/** A workflow of the contract by its own name (`Workflows` gives its input and result). */
export type WorkflowName = WorkflowType;

/** A handle whose `result()` is the workflow's result type. */
export type DataopsHandle<T extends WorkflowName> = WorkflowHandle<DataopsWorkflow<T>>;

/** What a caller sets when starting: the workflow id it chooses, and the task queue (the worker's) if not the default. */
export type StartOptions = Omit<WorkflowStartOptions, 'args' | 'taskQueue' | 'workflowId'> & {
  workflowId: string;
  /** @default DEFAULT_TASK_QUEUE */
  taskQueue?: string;
  /**
   * Set the run's first search attributes (`searchAttributesAtStart`: what it is about, its first stage) in the
   * start itself, beside any `typedSearchAttributes` given: the run is found by them before a worker takes it, and
   * saves the upsert that would set them (a Temporal Cloud action). A namespace that does not know them (not
   * registered, or registered moments ago) refuses such a start having started nothing: the run is then started
   * without them, and sets them itself as it goes (a worker registers them at its start unless told not to).
   * @default false
   */
  withSearchAttributes?: boolean;
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

/**
 * Starts workflow `type` with `input`, checked first (InvalidWorkflowInput names every problem). The handle has the
 * started run's id (`firstExecutionRunId`).
 */
export async function startDataops<T extends WorkflowName>(
  client: Client,
  type: T,
  input: Workflows[T][0],
  options: StartOptions,
): Promise<DataopsHandle<T> & { readonly firstExecutionRunId: string }> {
  const checked = checkInput(WORKFLOW_INPUTS[type], input);
  if (!checked.ok) throw new InvalidWorkflowInput(type, checked.problems);
  const { taskQueue = DEFAULT_TASK_QUEUE, withSearchAttributes, ...rest } = options;
  // Without `typedSearchAttributes` in `extra`, the caller's own (in `rest`) stay.
  const start = (extra: { typedSearchAttributes?: SearchAttributePair[] }) =>
    client.workflow.start(WORKFLOW_TYPES[type], { ...rest, ...extra, taskQueue, args: [input] }) as Promise<
      DataopsHandle<T> & { readonly firstExecutionRunId: string }
    >;
  if (!withSearchAttributes) return start({});
  // The caller's own value of a key wins over ours; refused for ours, the start is made with the caller's only.
  const given = rest.typedSearchAttributes;
  const theirs = given === undefined ? [] : Array.isArray(given) ? given : given.getAll();
  const ours = searchAttributesAtStart(type, input).filter((p) => !theirs.some((t) => t.key.name === p.key.name));
  return startWithSearchAttributes([...ours, ...theirs], start, () => undefined);
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
