/**
 * The handler of the `dataops` Nexus service (src/contract/nexus.ts), registered by the worker: each operation
 * checks its input exactly as the workflow does (a bad one is a BAD_REQUEST naming every problem, and no
 * workflow starts), then starts the workflow on the worker's own task queue, the run being the operation. The
 * workflow id is derived from the Nexus request id, so a retried start finds the same run instead of a second one.
 */
import { WorkflowRunOperationHandler, startWorkflow } from '@temporalio/nexus';
import * as nexus from 'nexus-rpc';
import type { z } from 'zod';
import { WORKFLOW_TYPES, checkInput, invalidInputMessage, type WorkflowType } from '../contract/index.js';
import { WORKFLOW_INPUTS } from '../contract/inputs.js';
import { dataopsNexusService } from '../contract/nexus.js';

/** The workflow id a Nexus operation's run gets. */
export const nexusWorkflowId = (workflow: string, requestId: string) => `dataops-nexus/${workflow}/${requestId}`;

function workflowRun<I, O>(workflow: WorkflowType, schema: z.ZodType): WorkflowRunOperationHandler<I, O> {
  return new WorkflowRunOperationHandler<I, O>(async (ctx, input) => {
    const checked = checkInput(schema, input);
    if (!checked.ok) throw new nexus.HandlerError('BAD_REQUEST', invalidInputMessage(workflow, checked.problems));
    return startWorkflow<(input: I) => Promise<O>>(ctx, WORKFLOW_TYPES[workflow], {
      args: [input],
      workflowId: nexusWorkflowId(workflow, ctx.requestId),
    });
  });
}

export const dataopsNexusHandler = nexus.serviceHandler(dataopsNexusService, {
  dataQualityPipeline: workflowRun('dataQualityPipeline', WORKFLOW_INPUTS.dataQualityPipeline),
  profileTableGroup: workflowRun('profileTableGroup', WORKFLOW_INPUTS.profileTableGroup),
  runTestSuite: workflowRun('runTestSuite', WORKFLOW_INPUTS.runTestSuite),
  runOrder: workflowRun('runOrder', WORKFLOW_INPUTS.runOrder),
  promoteTestDefinitions: workflowRun('promoteTestDefinitions', WORKFLOW_INPUTS.promoteTestDefinitions),
  exportTestDefinitions: workflowRun('exportTestDefinitions', WORKFLOW_INPUTS.exportTestDefinitions),
});
