/**
 * The bound of the scale benchmark (`--bound`): the least a workflow can do for a pipeline that makes the service's
 * calls itself, one heartbeating activity that submits, polls and reads exactly what the plain loop does
 * (bound-worker.ts), with none, one or both of the per-target lock executions that make a submission exactly-once. Below
 * the project's pipeline (no input check, no status report, no second activity) and above the floor (HTTP, polls,
 * heartbeats): what any design of the pipeline with those guarantees can reach on the machine.
 */
import { proxyActivities } from '@temporalio/workflow';

export interface BoundArgs {
  tableGroupId: string;
  testSuiteId: string;
  pollMs: number;
  /**
   * How many submissions take and release a lock execution, as `src/activities/target-lock.ts` does: 0; 1, the
   * profiling run's only (a test run can be found exactly through its metadata); or 2, both.
   */
  locks: 0 | 1 | 2;
}

const { boundSteps } = proxyActivities<{ boundSteps(args: BoundArgs): Promise<string> }>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
});

export async function boundPipeline(args: BoundArgs): Promise<string> {
  return await boundSteps(args);
}
