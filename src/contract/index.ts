/**
 * The contract other services depend on: workflow type names, the default task queue, input/output schemas,
 * queries and updates, and the recommended activity options. No Node imports (it is bundled into workflow code).
 */
export const DEFAULT_TASK_QUEUE = 'dataops-temporal';

/** Workflow type names: start them by name from any language. */
export const WORKFLOW_TYPES = {
  runOrder: 'runOrder',
  profileTableGroup: 'profileTableGroup',
  runTestSuite: 'runTestSuite',
  dataQualityPipeline: 'dataQualityPipeline',
  promoteTestDefinitions: 'promoteTestDefinitions',
  exportTestDefinitions: 'exportTestDefinitions',
} as const;
export type WorkflowType = keyof typeof WORKFLOW_TYPES;

export * from './activity-options.js';
export * from './messages.js';
export * from './types.js';
export * from './workflows.js';
export * from './gates.js';
export * from './promotion.js';
export * from './progress.js';
export * from './issues.js';
export * from './inputs.js';
