// Every workflow of this project, registered by the worker under these names (see src/contract WORKFLOW_TYPES).
import { setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import { dataQualityPipeline } from './pipeline.js';
import { profileTableGroup, runTestSuite } from './jobs.js';
import { runOrder } from './orders.js';
import { exportTestDefinitions, promoteTestDefinitions } from './promotion.js';
// Internal: the per-target lock (src/activities/target-lock.ts), and the lock holders of workflows started before it
// (src/workflows/submission.ts).
import { createOrder, submitJob } from './submission.js';
import { targetLock } from './target-lock.js';

// Worker Deployment Versioning (used when the worker has a deployment name and build id; see docs/versioning.md).
// The behaviour is declared only on a versioned worker: an unversioned one must send none (the server refuses it).
// An unversioned worker's tasks carry a build id but no deployment name.
// PINNED: a run stays on the version that started it, to its end: the workflows that follow jobs (hours, a day at
// most) and the lock holders (seconds). The old version's workers serve them until they drain; no patch needed.
// AUTO_UPGRADE: a promotion may wait days for its approval, too long to keep an old version running for it; it moves
// to the current version at its next task, so its changes go through patches and replay fixtures (patches.ts).
const when = (versioningBehavior: 'PINNED' | 'AUTO_UPGRADE') => () =>
  workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior } : {};
setWorkflowOptions(when('PINNED'), dataQualityPipeline);
setWorkflowOptions(when('PINNED'), profileTableGroup);
setWorkflowOptions(when('PINNED'), runTestSuite);
setWorkflowOptions(when('PINNED'), runOrder);
setWorkflowOptions(when('PINNED'), exportTestDefinitions);
setWorkflowOptions(when('PINNED'), submitJob);
setWorkflowOptions(when('PINNED'), createOrder);
setWorkflowOptions(when('PINNED'), targetLock);
setWorkflowOptions(when('AUTO_UPGRADE'), promoteTestDefinitions);

export {
  dataQualityPipeline,
  profileTableGroup,
  runTestSuite,
  runOrder,
  exportTestDefinitions,
  promoteTestDefinitions,
  createOrder,
  submitJob,
  targetLock,
};
