/**
 * Checks with the contract's zod schemas inside the workflow sandbox. Loaded lazily (a dynamic import), so only the
 * workflows that need it pay for building the schemas: a replay of a workflow started before its input check moved
 * to the worker (input.ts), and the promotion's approval and rejection, whose update validators must run here.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import { WORKFLOW_INPUTS, type CheckedWorkflow, type WorkflowInputs } from '../contract/inputs.js';
import { checkInput, invalidInputMessage } from '../contract/issues.js';
import { ApproveInput, RejectInput } from '../contract/promotion.js';

/** The input check as workflows ran it before it moved to the worker. */
export function parseInSandbox<K extends CheckedWorkflow>(workflow: K, raw: unknown): WorkflowInputs[K] {
  const checked = checkInput(WORKFLOW_INPUTS[workflow], raw);
  if (checked.ok) return checked.data as WorkflowInputs[K];
  const { problems } = checked;
  throw ApplicationFailure.create({
    type: 'InvalidInput',
    nonRetryable: true,
    message: invalidInputMessage(workflow, problems),
    details: [{ problems }],
  });
}

/** An approval's or a rejection's arguments, checked. */
export const checkApproval = (input: unknown) => checkInput(ApproveInput, input);
export const checkRejection = (input: unknown) => checkInput(RejectInput, input);
