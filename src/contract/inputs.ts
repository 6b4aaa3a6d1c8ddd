/** Each workflow's input schema by workflow type: the worker's input check and the Nexus handler read it. */
import type { z } from 'zod';
import { ExportTestDefinitionsInput, PromoteTestDefinitionsInput } from './promotion.js';
import { DataQualityPipelineInput, ProfileTableGroupInput, RunOrderInput, RunTestSuiteInput } from './workflows.js';

export const WORKFLOW_INPUTS = {
  dataQualityPipeline: DataQualityPipelineInput,
  profileTableGroup: ProfileTableGroupInput,
  runTestSuite: RunTestSuiteInput,
  runOrder: RunOrderInput,
  promoteTestDefinitions: PromoteTestDefinitionsInput,
  exportTestDefinitions: ExportTestDefinitionsInput,
} as const satisfies Record<string, z.ZodType>;

export type WorkflowInputs = { [K in keyof typeof WORKFLOW_INPUTS]: z.infer<(typeof WORKFLOW_INPUTS)[K]> };
export type CheckedWorkflow = keyof typeof WORKFLOW_INPUTS;
