/**
 * Every workflow of this project, registered by the worker: each module below exports its workflows under their
 * `dataops.` names only (WORKFLOW_TYPES, src/contract/workflow-types.ts), and nothing else, so what it exports is
 * what is registered. `test/contract/registration.test.ts` pins the two together.
 */
import { setWorkflowOptions, workflowInfo, type Workflow } from '@temporalio/workflow';
import * as jobs from './jobs.js';
import * as pipeline from './pipeline.js';
import * as promotion from './promotion.js';
// Internal: the submitter of each target (src/exactly-once/workflow/submitter.ts).
import * as submitter from '../exactly-once/workflow/submitter.js';

// Worker Deployment Versioning (used when the worker has a deployment name and build id; see docs/design/versioning.md).
// The behaviour is declared only on a versioned worker: an unversioned one must send none (the server refuses it).
// An unversioned worker's tasks carry a build id but no deployment name.
// Every workflow of the contract is PINNED: a run ends on the code that started it, so a change to workflow code is a
// new build id, never a patch. The old version's workers serve its runs until they drain: jobs within their
// maxWaitMs, a promotion within its approval timeout.
// The submitter of a target is the one exception, AUTO_UPGRADE: it serves the requests of every version, old and new
// alike, so it moves to the current version with its next task, and a version never waits on it to drain. Its code
// must replay its own earlier histories; a change that cannot is a new workflow type with ids of its own.
const versioned = (behavior: 'PINNED' | 'AUTO_UPGRADE') => () =>
  workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: behavior } : {};
const registered: Record<string, Workflow> = { ...jobs, ...pipeline, ...promotion };
for (const workflow of Object.values(registered)) setWorkflowOptions(versioned('PINNED'), workflow);
for (const workflow of Object.values(submitter)) setWorkflowOptions(versioned('AUTO_UPGRADE'), workflow as Workflow);

export * from './jobs.js';
export * from './pipeline.js';
export * from './promotion.js';
export * from '../exactly-once/workflow/submitter.js';
