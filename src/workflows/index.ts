// Every workflow of this project, registered by the worker under these names (see src/contract WORKFLOW_TYPES).
export { dataQualityPipeline } from './pipeline.js';
export { profileTableGroup, runTestSuite } from './jobs.js';
export { runOrder } from './orders.js';
export { exportTestDefinitions, promoteTestDefinitions } from './promotion.js';
// Internal: the lock holders of submissions and order creations (src/workflows/submission.ts).
export { createOrder, submitJob } from './submission.js';
