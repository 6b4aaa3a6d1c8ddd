/**
 * The Temporal floor of the scale benchmark: the least a workflow can do for a pipeline of two jobs, two activities
 * one after the other that each last as long as a job (no HTTP, no heartbeat, no lock, no report). What it costs the
 * worker and the server on the machine bounds what any workflow implementation of the pipeline can reach there.
 */
import { proxyActivities } from '@temporalio/workflow';

const { step } = proxyActivities<{ step(ms: number): Promise<void> }>({ startToCloseTimeout: '10 minutes' });

export async function floorPipeline(firstMs: number, secondMs = firstMs): Promise<void> {
  await step(firstMs);
  await step(secondMs);
}
