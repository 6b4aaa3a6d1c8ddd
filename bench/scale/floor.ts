/** Runs the scale benchmark's Temporal floor (floor-workflow.ts) on the benchmark's dev server. */
import type { World } from '../../test/helpers/matrix-world.js';
import { startProcess, type Proc } from '../../test/helpers/processes.js';
import { eventually } from '../../test/helpers/wait.js';
import { pooled } from './measure.js';
import { startAndFinish } from './pipelines.js';
import { startMarks, type StartMarks } from './start-phase.js';

const QUEUE = 'scale-floor';

/** Starts the floor's worker; answers it once it polls. */
export async function startFloorWorker(w: World, cache: number): Promise<Proc> {
  const proc = startProcess(
    [new URL('./floor-worker.js', import.meta.url).pathname, w.address, QUEUE, String(cache)],
    {},
  );
  await eventually('the floor worker', () => proc.output().includes('floor worker ready'), { delayMs: 100 });
  return proc;
}

/**
 * Runs `n` floor pipelines at once, the i-th of two steps as long as `stepsOf(i)`; answers how many failed, and when
 * the batch started (`t0`).
 */
export async function runFloor(
  w: World,
  label: string,
  n: number,
  stepsOf: (i: number) => [number, number],
): Promise<{ failures: number; t0: number; ids: string[] }> {
  const ids = Array.from({ length: n }, (_, i) => `floor-${label}-${i}`);
  const t0 = Date.now();
  const failed = await startAndFinish(ids, (workflowId, i) =>
    w.client.workflow.start('floorPipeline', { taskQueue: QUEUE, workflowId, args: stepsOf(i) }),
  );
  return { failures: failed.length, t0, ids };
}

/** The start steps (start-phase.ts) of the floor pipelines `ids`: their first step is their first "job". */
export async function floorStarts(w: World, ids: string[]): Promise<StartMarks[]> {
  const read = await pooled(ids, 50, async (id) =>
    startMarks((await w.client.workflow.getHandle(id).fetchHistory()).events ?? []),
  );
  return read.flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value] : []));
}
