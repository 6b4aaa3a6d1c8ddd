/**
 * A workflow's input, checked by the worker: the local activity `checkWorkflowInput` parses it with the contract's
 * zod schemas, which are then built once per worker instead of in every workflow's sandbox (each cached workflow
 * would otherwise hold its own copy: 1.9 MiB against 0.25). The parsed input is recorded in history (one marker).
 *
 * Workflows started before the check moved have no `input-checked-by-worker` marker: they replay with the check they
 * ran, in the sandbox, whose schemas are loaded only then (input-in-sandbox.ts, a lazy import).
 */
import { ActivityFailure, ApplicationFailure, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { INPUT_CHECK } from '../contract/activity-options.js';
import type { CheckedWorkflow, WorkflowInputs } from '../contract/inputs.js';
import type { CheckedInput } from '../activities/inputs.js';
import { applies } from './patches.js';
import type { Tracker } from './shared.js';

const isVersioned = <T>(answer: unknown): answer is CheckedInput<T> =>
  typeof answer === 'object' &&
  answer !== null &&
  (answer as { checkedInputVersion?: unknown }).checkedInputVersion === 2;

/** The workflows whose first task submits under the lock, right after their input check. */
const SUBMIT_FIRST = new Set<CheckedWorkflow>(['dataQualityPipeline', 'profileTableGroup', 'runTestSuite', 'runOrder']);

/**
 * Parses a workflow input; a bad input fails the workflow at once with InvalidInput listing every problem. The worker's
 * answer also says whether the run sets its search attributes, and the task queue of its waits (both kept in `t`).
 * `given`: how many arguments the workflow was called with (`arguments.length`); more than its one input is refused,
 * not dropped.
 */
export async function checkedInput<K extends CheckedWorkflow>(
  workflow: K,
  raw: unknown,
  t?: Pick<Tracker, 'search' | 'waitsTaskQueue'>,
  given = 1,
): Promise<WorkflowInputs[K]> {
  // When replaying, Core meets a patch marker as it reads the task's events, while a local activity's result reaches
  // the workflow in a later activation of that task: a patch check made right after this one would come too late (a
  // nondeterminism error, seen on queries of evicted pipelines). So the first check comes before the local activity:
  // the baseline's in workflows started since it (patches.ts); in older ones that submit first, the submission
  // lock's, remembered for the rest of the workflow, whose marker they have first in this task too.
  if (SUBMIT_FIRST.has(workflow)) applies('submissionLock');
  if (!applies('inputCheckedByWorker')) {
    const { parseInSandbox } = await import(/* webpackMode: "eager" */ './input-in-sandbox.js');
    return parseInSandbox(workflow, raw);
  }
  try {
    const checked: unknown = await proxyLocalActivities<Activities>(INPUT_CHECK).checkWorkflowInput({
      workflow,
      input: raw,
      ...(given > 1 ? { extraArguments: given - 1 } : {}),
    });
    if (!isVersioned<WorkflowInputs[K]>(checked)) return checked as WorkflowInputs[K]; // histories from before
    if (t) {
      t.search.enabled = checked.searchAttributes;
      if (checked.waitsTaskQueue) t.waitsTaskQueue = checked.waitsTaskQueue;
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
