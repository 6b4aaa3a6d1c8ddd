/**
 * The contract other services depend on: workflow type names, the default task queue, input/output schemas,
 * and signal, query and update definitions. No Node imports (it is bundled into workflow code).
 */
export const DEFAULT_TASK_QUEUE = 'dataops-temporal';
