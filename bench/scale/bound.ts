/** Runs the scale benchmark's bound (bound-workflow.ts) on the benchmark's dev server and simulator. */
import type { World } from '../../test/helpers/matrix-world.js';
import { startProcess, type Proc } from '../../test/helpers/processes.js';
import { eventually } from '../../test/helpers/wait.js';
import type { Target } from './loop.js';
import { startAndFinish } from './pipelines.js';
import { measured } from './side.js';
import type { BoundArgs } from './bound-workflow.js';
import { openingSearch, searchPairs } from '../../src/contract/search-attributes.js';

const QUEUE = 'scale-bound';

/** What a shape of the bound is called in the benchmark's tables. */
export const boundName = (locks: number) =>
  [
    'one activity',
    'one activity, 1 lock',
    'one activity, 2 locks',
    'one activity, a submitter',
    'one activity, a submitter recording each send',
    'one activity, a submitter recording each send, each job named',
    'one activity, a submitter recording each send, each job named, the input check and progress upserts',
    'one path: both jobs through their submitters recording each send, an activity per job, the input check and progress upserts',
  ][locks] ?? `${locks} locks`;

/** Starts the bound's worker; answers it once it polls. */
export async function startBoundWorker(w: World, cache: number): Promise<Proc> {
  const script = new URL('./bound-worker.js', import.meta.url).pathname;
  const proc = startProcess([script, w.address, QUEUE, String(cache), w.controls.url], {});
  await eventually('the bound worker', () => proc.output().includes('bound worker ready'), { delayMs: 100 });
  return proc;
}

/**
 * Runs one bound pipeline per target at once; answers how many failed. `searchAttributes`: whether ours sets them in
 * this run, and so shapes 6 and 7 (their opening ones in the start, as ours are started, then their two upserts).
 */
export async function runBound(
  w: World,
  label: string,
  batch: Target[],
  pollMs: number,
  locks: BoundArgs['locks'],
  searchAttributes: boolean,
): Promise<{ failures: number }> {
  const ids = batch.map((_, i) => `bound-${label}-${locks}-locks-${i}`);
  const upserts = locks >= 6 && searchAttributes;
  const failed = await startAndFinish(ids, (workflowId, i) =>
    w.client.workflow.start('boundPipeline', {
      taskQueue: QUEUE,
      workflowId,
      args: [{ ...batch[i]!, pollMs, locks, upserts }],
      ...(upserts ? { typedSearchAttributes: searchPairs(openingSearch('dataQualityPipeline', batch[i]!)) } : {}),
    }),
  );
  if (failed.length) console.warn(`bound: ${failed.length} failed, the first: ${String(failed[0])}`);
  return { failures: failed.length };
}

/**
 * Runs the bound's `shapes` (their lock counts) one after the other on `batch`, each measured as a side of the batch
 * (side.ts); `plan` plans the jobs' lengths before each, as for every side.
 */
export async function boundSides(
  w: World,
  worker: Proc,
  shapes: number[],
  batch: Target[],
  label: string,
  pollMs: number,
  plan: () => Promise<unknown>,
  searchAttributes: boolean,
) {
  const sides = [];
  for (const locks of shapes) {
    await plan();
    const side = await measured(w, worker.child.pid!, async () => ({
      lags: [],
      timelines: [],
      ...(await runBound(w, label, batch, pollMs, locks as BoundArgs['locks'], searchAttributes)),
    }));
    sides.push({ ...side, name: boundName(locks) });
  }
  return sides;
}
