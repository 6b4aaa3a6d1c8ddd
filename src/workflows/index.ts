// Every workflow of this project, registered by the worker under the names exported below.
import { setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import { dataQualityPipeline } from './pipeline.js';
import { profileTableGroup, runTestSuite } from './jobs.js';
import { runOrder } from './orders.js';
import { exportTestDefinitions, promoteTestDefinitions } from './promotion.js';
// Internal: the per-target lock (src/activities/target-lock.ts).
import { targetLock } from './target-lock.js';

// Worker Deployment Versioning (used when the worker has a deployment name and build id; see docs/versioning.md).
// The behaviour is declared only on a versioned worker: an unversioned one must send none (the server refuses it).
// An unversioned worker's tasks carry a build id but no deployment name.
// Every workflow is PINNED: a run ends on the code that started it, so a change to workflow code is a new build id,
// never a patch. The old version's workers serve its runs until they drain: jobs within their maxWaitMs, a promotion
// within its approval timeout, a lock within seconds (one that runs after its start delay completes at once).
const pinned = () =>
  workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: 'PINNED' as const } : {};
setWorkflowOptions(pinned, dataQualityPipeline);
setWorkflowOptions(pinned, profileTableGroup);
setWorkflowOptions(pinned, runTestSuite);
setWorkflowOptions(pinned, runOrder);
setWorkflowOptions(pinned, exportTestDefinitions);
setWorkflowOptions(pinned, promoteTestDefinitions);
setWorkflowOptions(pinned, targetLock);

// Registered under the contract's names (WORKFLOW_TYPES, names.ts): `dataops.` and the function's name.
export {
  dataQualityPipeline as 'dataops.dataQualityPipeline',
  profileTableGroup as 'dataops.profileTableGroup',
  runTestSuite as 'dataops.runTestSuite',
  runOrder as 'dataops.runOrder',
  exportTestDefinitions as 'dataops.exportTestDefinitions',
  promoteTestDefinitions as 'dataops.promoteTestDefinitions',
  targetLock as 'dataops.targetLock',
};
