/**
 * Every workflow of the contract, by its own name, with its input, its result and its registered type. The one list
 * is the Nexus service (nexus.ts): one operation per workflow. What else names the workflows (their type names, the
 * typed starters of `dataops-temporal/client`, the Nexus handler, the input schemas' map) follows from it, and a
 * test pins the worker's registration to it. No zod here: a caller's workflow code may import it.
 */
import type { OperationInput, OperationOutput } from 'nexus-rpc';
import { NAME_PREFIX } from './names.js';
import { dataopsNexusService, type DataopsNexusService } from './nexus.js';

type Operations = DataopsNexusService['operations'];

/** Each workflow's input and result, by the workflow's own name. */
export type Workflows = { [K in keyof Operations]: [OperationInput<Operations[K]>, OperationOutput<Operations[K]>] };
export type WorkflowType = keyof Workflows;

/**
 * A workflow's function type, for the SDK's typed calls by name: `executeChild<DataopsWorkflow<'dataQualityPipeline'>>
 * ('dataops.dataQualityPipeline', { args: [input] })` takes the input and resolves to the result, typed.
 */
export type DataopsWorkflow<K extends WorkflowType> = (input: Workflows[K][0]) => Promise<Workflows[K][1]>;

/** Workflow type names: start them by name from any language (each `dataops.` and its name: see names.ts). */
export const WORKFLOW_TYPES = Object.fromEntries(
  Object.keys(dataopsNexusService.operations).map((name) => [name, `${NAME_PREFIX}${name}`]),
) as { readonly [K in WorkflowType]: `dataops.${K}` };
