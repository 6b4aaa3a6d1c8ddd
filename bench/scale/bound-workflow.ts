/**
 * The bound of the scale benchmark (`--bound`): the least a workflow can do for a pipeline that makes the service's
 * calls itself, one heartbeating activity that submits, polls and reads exactly what the plain loop does
 * (bound-worker.ts), with none, one or both of the per-target lock executions that make a submission exactly-once. Below
 * the project's pipeline (no input check, no status report, no second activity) and above the floor (HTTP, polls,
 * heartbeats): what any design of the pipeline with those guarantees can reach on the machine.
 */
import {
  defineSignal,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { SEARCH_ATTRIBUTES } from '../../src/contract/search-attributes.js';
import { submittedThrough, type SubmitRequest } from './bound-submitter.js';

export { boundSubmitter } from './bound-submitter.js';

export interface BoundArgs {
  tableGroupId: string;
  testSuiteId: string;
  pollMs: number;
  /**
   * How many submissions take and release a lock execution, as `src/activities/target-lock.ts` does: 0; 1, the
   * profiling run's only (a test run can be found exactly through its metadata); or 2, both. 3: none, the profiling
   * run goes through its table group's submitter workflow instead (bound-submitter.ts); 4: the same, each send
   * recorded at the submitter before it leaves; 5: that, and the test run named to the workflow once submitted
   * (`namedSignal`), so that the workflow knows each of its jobs' ids (the profiling run's from its submitter); 6: that,
   * carrying what ours carries for issues other than exactly-once, at its cost in actions: the input check as a local
   * activity in the first workflow task (the project's own `checkWorkflowInput`, one marker: #14 keeps the contract's
   * schemas out of every workflow's sandbox) and the progress upserts after the opening search attributes (#15: the
   * stage before the test run, the verdict at the end; here both around the one activity that runs both jobs). 7: one
   * path, as #75 asks: shape 6 with the test run through its suite's submitter too (each send recorded), so each job is
   * waited by an activity of its own (`part`); the profiling run's asks for the test run as it ends (onePath).
   */
  locks: 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7;
  /** Shape 6: whether it upserts (ours sets search attributes in this run: their opening ones come in the start). */
  upserts?: boolean;
  /** The profiling run, when a submitter sent it. */
  profilingJobId?: string;
  /** The test run, when a submitter sent it (shape 7). */
  testRunJobId?: string;
  /**
   * Shape 7: which job the activity waits for, the profiling run (which then asks its suite's submitter for the test
   * run: `request`) or the test run; absent, both.
   */
  part?: 'profiling' | 'tests';
  request?: SubmitRequest;
}

const { boundSteps } = proxyActivities<{ boundSteps(args: BoundArgs): Promise<string> }>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
});

const { requestSubmission } = proxyActivities<{ requestSubmission(r: SubmitRequest): Promise<void> }>({
  startToCloseTimeout: '1 minute',
});

/**
 * The activity's news of the job it submitted (`--bound 5`): what a workflow must know to cancel the job at once when
 * it is cancelled, rather than at its wait's next heartbeat, as the issue asks and ours does (its wait's first report
 * names the job). Nothing cancels here: what is measured is its cost, a signal per job the workflow does not submit
 * itself.
 */
export const namedSignal = defineSignal<[{ jobId: string }]>('named');

/** The input check of shape 6: our worker's own, on the input our pipelines are given (bound-worker.ts). */
const { boundInputCheck } = proxyLocalActivities<{ boundInputCheck(args: BoundArgs): Promise<BoundArgs> }>({
  startToCloseTimeout: '30 seconds',
});

export async function boundPipeline(given: BoundArgs): Promise<string> {
  const args = given.locks >= 6 ? await boundInputCheck(given) : given;
  const upserts = args.upserts === true;
  if (args.locks < 3) return await boundSteps(args);
  if (args.locks === 7) return await onePath(args, upserts);
  const profilingJobId = await submittedThrough(requestSubmission, args.tableGroupId, args.locks >= 4);
  setHandler(namedSignal, () => undefined);
  if (upserts) upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.stage, value: 'test_run' }]);
  const status = await boundSteps({ ...args, profilingJobId });
  if (upserts)
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.verdict, value: status === 'completed' ? 'passed' : 'failed' }]);
  return status;
}

/**
 * Shape 7, one path: each job through its target's submitter, each send recorded there before it leaves, each job
 * waited by an activity of its own. The least a pipeline can do when its test run is serialised too: the profiling
 * run's activity asks the suite's submitter as it ends (no activity of its own for the ask), and the workflow knows
 * each job from its submitter's answer (no job named by signal).
 */
async function onePath(args: BoundArgs, upserts: boolean): Promise<string> {
  const profilingJobId = await submittedThrough(requestSubmission, args.tableGroupId, true);
  if (upserts) upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.stage, value: 'test_run' }]);
  const asking = (request: SubmitRequest) => boundSteps({ ...args, profilingJobId, part: 'profiling', request });
  const testRunJobId = await submittedThrough(asking, args.testSuiteId, true, 'tests');
  const status = await boundSteps({ ...args, testRunJobId, part: 'tests' });
  if (upserts)
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.verdict, value: status === 'completed' ? 'passed' : 'failed' }]);
  return status;
}
