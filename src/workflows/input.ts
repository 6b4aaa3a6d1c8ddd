/**
 * A workflow's input, checked by the worker: the local activity `checkWorkflowInput` parses it with the contract's
 * zod schemas, which are then built once per worker instead of in every workflow's sandbox (each cached workflow
 * would otherwise hold its own copy: 1.9 MiB against 0.25). The parsed input is recorded in history (one marker).
 */
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { INPUT_CHECK } from '../contract/activity-options.js';
import type { CheckedWorkflow, WorkflowInputs } from '../contract/inputs.js';
import type { CheckedInput } from '../activities/inputs.js';
import type { Tracker } from './shared.js';
import { ourLocalActivities } from './ours.js';

/**
 * Parses a workflow input; a bad input fails the workflow at once with InvalidInput listing every problem. The worker's
 * answer also says whether the run sets its search attributes, and the task queue of its waits (both kept in `t`).
 * `given`: how many arguments the workflow was called with (`arguments.length`); more than its one input is refused,
 * not dropped.
 */
export async function checkedInput<K extends CheckedWorkflow>(
  workflow: K,
  raw: unknown,
  t?: Pick<Tracker, 'search' | 'waitsTaskQueue' | 'lineage' | 'links'>,
  given = 1,
): Promise<WorkflowInputs[K]> {
  try {
    const checked: CheckedInput<WorkflowInputs[K]> = await ourLocalActivities(INPUT_CHECK).checkWorkflowInput({
      workflow,
      input: raw,
      ...(given > 1 ? { extraArguments: given - 1 } : {}),
    });
    if (t) {
      t.search.enabled = checked.searchAttributes;
      if (checked.waitsTaskQueue) t.waitsTaskQueue = checked.waitsTaskQueue;
      if (checked.jobLinks) t.links = checked.jobLinks;
      t.lineage.enabled = checked.lineage ?? false;
      t.lineage.started(checked.input, new Date().toISOString());
    }
    return checked.input;
  } catch (err) {
    // The check's refusal is the workflow's own failure, at the top of the chain, as callers know it.
    const cause = err instanceof ActivityFailure ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === 'InvalidInput')
      throw ApplicationFailure.create({
        type: 'InvalidInput',
        nonRetryable: true,
        message: cause.message,
        details: cause.details ? [...cause.details] : [],
      });
    throw err;
  }
}
