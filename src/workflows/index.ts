/**
 * Every workflow of this project, registered by the worker: each module below exports its workflows under their
 * `dataops.` names only (WORKFLOW_TYPES, src/contract/workflow-types.ts), and nothing else, so what it exports is
 * what is registered. `test/contract/registration.test.ts` pins the two together.
 */
import { setWorkflowOptions, workflowInfo, type Workflow } from '@temporalio/workflow';
import * as jobs from './jobs.js';
import * as pipeline from './pipeline.js';
import * as promotion from './promotion.js';
// Internal: the per-target lock (src/activities/target-lock.ts).
import * as lock from './target-lock.js';

// Worker Deployment Versioning (used when the worker has a deployment name and build id; see docs/versioning.md).
// The behaviour is declared only on a versioned worker: an unversioned one must send none (the server refuses it).
// An unversioned worker's tasks carry a build id but no deployment name.
// Every workflow is PINNED: a run ends on the code that started it, so a change to workflow code is a new build id,
// never a patch. The old version's workers serve its runs until they drain: jobs within their maxWaitMs, a promotion
// within its approval timeout, a lock within seconds (one that runs after its start delay completes at once).
const pinned = () =>
  workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: 'PINNED' as const } : {};
const registered: Record<string, Workflow> = { ...jobs, ...pipeline, ...promotion, ...lock };
for (const workflow of Object.values(registered)) setWorkflowOptions(pinned, workflow);

export * from './jobs.js';
export * from './pipeline.js';
export * from './promotion.js';
export * from './target-lock.js';
