/**
 * The worker of the scale benchmark's Temporal floor (floor-workflow.ts), as a process of its own so that its CPU is
 * read apart: `node dist/bench/scale/floor-worker.js <temporal address> <task queue> <cached workflows>`. The cache
 * is the project's worker's.
 */
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { runBenchWorker } from './bench-worker.js';

const [address, taskQueue, cache] = process.argv.slice(2);
if (!address || !taskQueue || !Number.isInteger(Number(cache)))
  throw new Error('usage: floor-worker.js <temporal address> <task queue> <cached workflows>');
await runBenchWorker('floor', address, {
  taskQueue,
  workflowsPath: fileURLToPath(new URL('./floor-workflow.js', import.meta.url)),
  activities: { step: (ms: number) => sleep(ms) },
  maxCachedWorkflows: Number(cache),
});
