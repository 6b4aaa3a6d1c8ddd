/**
 * The contract other services depend on: workflow type names, the default task queue, input/output schemas,
 * queries and updates, and the recommended activity options. No Node imports (it is bundled into workflow code).
 */
export const DEFAULT_TASK_QUEUE = 'dataops-temporal';

/** Workflow type names: start them by name from any language (each `dataops.` and its name: see names.ts). */
export const WORKFLOW_TYPES = {
  runOrder: 'dataops.runOrder',
  profileTableGroup: 'dataops.profileTableGroup',
  runTestSuite: 'dataops.runTestSuite',
  dataQualityPipeline: 'dataops.dataQualityPipeline',
  promoteTestDefinitions: 'dataops.promoteTestDefinitions',
  exportTestDefinitions: 'dataops.exportTestDefinitions',
} as const satisfies Record<string, `dataops.${string}`>;
export type WorkflowType = keyof typeof WORKFLOW_TYPES;

export * from './activity-options.js';
export * from './names.js';
export * from './messages.js';
export * from './types.js';
export * from './workflows.js';
export * from './gates.js';
export * from './promotion.js';
export * from './progress.js';
export * from './issues.js';
export * from './inputs.js';
