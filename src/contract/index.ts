/**
 * The contract other services depend on: workflow type names, the default task queue, input/output schemas,
 * queries and updates, and the recommended activity options. No Node imports (it is bundled into workflow code).
 */
export const DEFAULT_TASK_QUEUE = 'dataops-temporal';

export * from './activity-options.js';
export * from './names.js';
export * from './workflow-types.js';
export * from './messages.js';
export * from './types.js';
export * from './workflows.js';
export * from './gates.js';
export * from './promotion.js';
export * from './progress.js';
export * from './issues.js';
export * from './inputs.js';
export * from './search-attributes.js';
export * from './failures.js';
