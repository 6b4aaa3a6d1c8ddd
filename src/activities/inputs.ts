/**
 * The workflows' input check, run as a local activity: the contract's zod schemas are built once per worker here,
 * instead of in every workflow's sandbox (see docs/design/README.md, "Inputs are checked by the worker"). The parsed
 * input, defaults applied, is recorded in history, so a replay neither parses again nor sees a changed default.
 */
import { ApplicationFailure } from '@temporalio/common';
import { WORKFLOW_INPUTS, type CheckedWorkflow, type WorkflowInputs } from '../contract/inputs.js';
import { checkInput, invalidInputMessage } from '../contract/issues.js';
import type { JobLinks } from '../contract/job-links.js';

/**
 * The check's answer: the parsed input, and what the worker tells the workflow with it (recorded in the same
 * marker, so a replay sees what the first run saw).
 */
export interface CheckedInput<T> {
  input: T;
  /** Whether the workflow sets the project's search attributes (registered in the namespace: see worker start). */
  searchAttributes: boolean;
  /** The task queue the worker serves the heartbeating waits on (DATAOPS_WAITS_TASK_QUEUE); absent: `<queue>-waits`. */
  waitsTaskQueue?: string;
  /** Whether the worker sends lineage events: the workflow then calls `emitLineage` at its transitions. */
  lineage?: boolean;
  /** Each job's page in the service's UI, by role (src/contract/job-links.ts); absent: none. */
  jobLinks?: JobLinks;
}

const DAY = 24 * 3_600_000;

/**
 * What the worker's own settings refuse in an input the schema accepts: a promotion whose approval may wait longer
 * than the claim-check store keeps its export (which would then be gone at the apply). A day is left for the export
 * and preview before the wait, and for the store's daily expiry runs.
 */
export function workerLimitProblems(workflow: string, input: unknown, claimCheckRetentionMs?: number): string[] {
  if (workflow !== 'promoteTestDefinitions' || claimCheckRetentionMs === undefined) return [];
  const approval = (input as { approval?: { required?: boolean; timeoutMs?: number } }).approval;
  if (!approval?.required || approval.timeoutMs === undefined || approval.timeoutMs + DAY <= claimCheckRetentionMs)
    return [];
  const days = claimCheckRetentionMs / DAY;
  return [
    `approval.timeoutMs: ${approval.timeoutMs} ms (${(approval.timeoutMs / DAY).toFixed(1)} days) plus a day exceeds ` +
      `this worker's claim-check retention of ${days} days (DATAOPS_BLOB_RETENTION_DAYS): the export would be removed ` +
      'before the apply; wait less, or keep claim checks longer',
  ];
}

/**
 * Waits until the namespace has the search attributes the workflow is about to set. What is missing fails the
 * workflow at once (SearchAttributesMissing, naming it and the fix); a connection that failed is tried again.
 */
async function searchAttributesReady(ready: (() => Promise<void>) | undefined): Promise<void> {
  try {
    await ready?.();
  } catch (err) {
    if (!(err instanceof Error && err.name === 'SearchAttributesMissing')) throw err;
    throw ApplicationFailure.create({ type: 'SearchAttributesMissing', nonRetryable: true, message: err.message });
  }
}

export function inputActivities(worker: {
  searchAttributes: boolean;
  namespaceReady?: () => Promise<void>;
  claimCheckRetentionMs?: number;
  waitsTaskQueue?: string;
  lineage: boolean;
  jobLinks?: JobLinks;
}) {
  return {
    /** The workflow's input, parsed with defaults; a bad one fails InvalidInput (non-retryable) listing every problem. */
    checkWorkflowInput: async <K extends CheckedWorkflow>(raw: {
      workflow: K;
      input: unknown;
      /** Arguments the workflow was given after its input (a caller's mistake): refused, never dropped. */
      extraArguments?: number;
    }): Promise<CheckedInput<WorkflowInputs[K]>> => {
      const schema = Object.hasOwn(WORKFLOW_INPUTS, raw.workflow) ? WORKFLOW_INPUTS[raw.workflow] : undefined;
      if (!schema)
        throw ApplicationFailure.create({
          type: 'InvalidInput',
          nonRetryable: true,
          message: `no input schema for workflow ${String(raw.workflow)}`,
        });
      const extra = raw.extraArguments ?? 0;
      const parsed: ReturnType<typeof checkInput> =
        extra > 0
          ? {
              ok: false,
              problems: [
                `(arguments): ${raw.workflow} takes one argument, its input object; it was given ${extra + 1}`,
              ],
            }
          : checkInput(schema, raw.input);
      const limits = parsed.ok ? workerLimitProblems(raw.workflow, parsed.data, worker.claimCheckRetentionMs) : [];
      const checked = limits.length ? { ok: false as const, problems: limits } : parsed;
      if (checked.ok && worker.searchAttributes) await searchAttributesReady(worker.namespaceReady);
      if (checked.ok)
        return {
          input: checked.data as WorkflowInputs[K],
          searchAttributes: worker.searchAttributes,
          ...(worker.waitsTaskQueue ? { waitsTaskQueue: worker.waitsTaskQueue } : {}),
          // Told only when on: the answer of a worker without them stays as it was (recorded in history).
          ...(worker.lineage ? { lineage: true } : {}),
          ...(worker.jobLinks ? { jobLinks: worker.jobLinks } : {}),
        };
      throw ApplicationFailure.create({
        type: 'InvalidInput',
        nonRetryable: true,
        message: invalidInputMessage(raw.workflow, checked.problems),
        details: [{ problems: checked.problems }],
      });
    },
  };
}
