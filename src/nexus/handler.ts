/**
 * The handler of the `dataops` Nexus service (src/contract/nexus.ts), registered by the worker: each operation
 * checks its input exactly as the workflow does (a bad one is a BAD_REQUEST naming every problem, and no
 * workflow starts), then starts the workflow on the worker's own task queue, the run being the operation. The
 * workflow id is derived from the Nexus request id, so a retried start finds the same run instead of a second one.
 */
import type { SearchAttributePair } from '@temporalio/common';
import { WorkflowRunOperationHandler, log, startWorkflow } from '@temporalio/nexus';
import * as nexus from 'nexus-rpc';
import type { z } from 'zod';
import {
  WORKFLOW_TYPES,
  checkInput,
  invalidInputMessage,
  searchAttributesAtStart,
  startWithSearchAttributes,
  type WorkflowType,
  type Workflows,
} from '../contract/index.js';
import { WORKFLOW_INPUTS } from '../contract/inputs.js';
import { dataopsNexusService, type DataopsNexusService } from '../contract/nexus.js';

/** The workflow id a Nexus operation's run gets. */
export const nexusWorkflowId = (workflow: string, requestId: string) => `dataops-nexus/${workflow}/${requestId}`;

/** What the worker tells its handler: whether a run starts with its first search attributes (registered). */
export interface NexusHandlerOptions {
  searchAttributes: boolean;
}

function workflowRun<K extends WorkflowType>(
  workflow: K,
  schema: z.ZodType,
  options: NexusHandlerOptions,
): WorkflowRunOperationHandler<Workflows[K][0], Workflows[K][1]> {
  return new WorkflowRunOperationHandler(async (ctx, input) => {
    const checked = checkInput(schema, input);
    if (!checked.ok) throw new nexus.HandlerError('BAD_REQUEST', invalidInputMessage(workflow, checked.problems));
    const start = (extra: { typedSearchAttributes?: SearchAttributePair[] }) =>
      startWorkflow<(input: Workflows[K][0]) => Promise<Workflows[K][1]>>(ctx, WORKFLOW_TYPES[workflow], {
        args: [input],
        workflowId: nexusWorkflowId(workflow, ctx.requestId),
        ...extra,
      });
    if (!options.searchAttributes) return start({});
    // The worker has them registered (its start checked): set in the start, the run saves the upsert of them.
    return startWithSearchAttributes(searchAttributesAtStart(workflow, input), start, (reason) => {
      log.warn('the namespace refused the search attributes; the run starts without them', { workflow, reason });
    });
  });
}

/** One operation handler per workflow of the contract, each checking that workflow's input. */
export const dataopsNexusHandler = (options: NexusHandlerOptions) =>
  nexus.serviceHandler(
    dataopsNexusService,
    Object.fromEntries(
      (Object.keys(WORKFLOW_INPUTS) as WorkflowType[]).map((workflow) => [
        workflow,
        workflowRun(workflow, WORKFLOW_INPUTS[workflow], options),
      ]),
    ) as unknown as nexus.ServiceHandlerFor<DataopsNexusService['operations']>,
  );
