/**
 * Each workflow's input schema by workflow type: the worker's input check, the Nexus handler, the typed starters and
 * the JSON Schemas read it. Each file of workflow inputs keeps its own map beside its schemas; this joins them, and
 * the compiler holds them to the workflows of the contract (workflow-types.ts): none missing, none extra.
 */
import type { z } from 'zod';
import { PROMOTION_WORKFLOW_INPUTS } from './promotion.js';
import type { WorkflowType, Workflows } from './workflow-types.js';
import { JOB_WORKFLOW_INPUTS } from './workflows.js';

export const WORKFLOW_INPUTS = { ...JOB_WORKFLOW_INPUTS, ...PROMOTION_WORKFLOW_INPUTS } as const satisfies {
  [K in WorkflowType]: z.ZodType<unknown, Workflows[K][0]>;
};

/** A schema for a workflow that the contract does not list is a compile error here. */
type Extra = Exclude<keyof typeof WORKFLOW_INPUTS, WorkflowType>;
const noExtra: [Extra] extends [never] ? true : Extra = true;
void noExtra;

export type WorkflowInputs = { [K in keyof typeof WORKFLOW_INPUTS]: z.infer<(typeof WORKFLOW_INPUTS)[K]> };
export type CheckedWorkflow = keyof typeof WORKFLOW_INPUTS;
