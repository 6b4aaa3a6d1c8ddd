/**
 * Jobs of varying length for the scale benchmark (`--run-spread-ms`). With one fixed length, a plain loop that polls
 * from the moment it submits sees each job complete within one round trip, since the job lasts a whole number of poll
 * intervals; no real job is that punctual, and a wait that starts later pays up to a poll interval for it. Each job's
 * running time is drawn from `runMs` to `runMs + spreadMs` by its target's place in the batch and its kind, so the
 * loop, the worker and the floor get the same lengths.
 */
import type { SimControls } from '../../test/helpers/matrix-world.js';
import type { Target } from './loop.js';
import { pooled } from './measure.js';

/** The pending and claimed phases of every job: the simulator's durations the benchmark sets (run.ts). */
export const PHASES = { pendingMs: 500, claimMs: 500 } as const;
const BEFORE_RUN_MS = PHASES.pendingMs + PHASES.claimMs;

/** A fraction in [0, 1) from a whole number, the same on every run (a 32-bit integer hash). */
function fraction(seed: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 2 ** 32;
}

/** The running time of job `job` (0: profiling, 1: the test run) of the `index`-th pipeline of a batch. */
export function runMsOf(runMs: number, spreadMs: number, index: number, job: 0 | 1): number {
  return runMs + Math.floor(fraction(index * 2 + job) * (spreadMs + 1));
}

/** Each job's whole length, submission to completion: what the floor's steps sleep. */
export const jobMsOf = (runMs: number, spreadMs: number, index: number): [number, number] => [
  BEFORE_RUN_MS + runMsOf(runMs, spreadMs, index, 0),
  BEFORE_RUN_MS + runMsOf(runMs, spreadMs, index, 1),
];

/**
 * Plans the running time of the next profiling run and test run of every target of the batch (none when fixed).
 * Plans the previous side left unused (a submission it failed, or never made) are dropped first, so that they cannot
 * go to this side's jobs; answers how many were.
 */
export async function planRunTimes(controls: SimControls, batch: Target[], runMs: number, spreadMs: number) {
  const { cleared } = await controls.clearJobPlans();
  if (spreadMs === 0) return cleared;
  const plans = batch.flatMap((t, i) => [
    { job_key: 'run-profile', target_id: t.tableGroupId, durations: { runMs: runMsOf(runMs, spreadMs, i, 0) } },
    { job_key: 'run-tests', target_id: t.testSuiteId, durations: { runMs: runMsOf(runMs, spreadMs, i, 1) } },
  ]);
  const settled = await pooled(plans, 20, (plan) => controls.planJobs(plan));
  const refused = settled.find((s) => s.status === 'rejected');
  if (refused) throw new Error(`the simulator refused a job plan: ${String(refused.reason)}`);
  return cleared;
}
