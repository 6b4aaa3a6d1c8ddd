/**
 * Which jobs the job engine must look at: those not terminal at its last pass, and those created since. A terminal job
 * never moves again, so a pass (one before every request) costs what is live, not every job the simulator has held: a
 * long demo, or a benchmark's later side, would otherwise pay per request for every job before it. Derived from the
 * state, never stored in it: a loaded state file is scanned once.
 */
import type { JobRecord, SimStateData } from './state.js';

interface Live {
  /** Places in `job_order` of the jobs not terminal at the last pass, ascending. */
  places: number[];
  /** The first place the last pass had not seen (jobs from here on were created since). */
  from: number;
}

const liveOf = new WeakMap<SimStateData, Live>();

function live(state: SimStateData): Live {
  let l = liveOf.get(state);
  // A state whose job list is shorter than what was seen is not the one indexed: scanned anew.
  if (!l || l.from > state.job_order.length) liveOf.set(state, (l = { places: [], from: 0 }));
  return l;
}

const jobAt = (state: SimStateData, place: number): JobRecord | undefined => state.jobs[state.job_order[place] ?? ''];

/**
 * Every job that may not be terminal, in `job_order` order, including those created while it is iterated (a finished
 * profiling run may append a generation job, which must advance in the same pass).
 */
export function* maybeLive(state: SimStateData): Generator<JobRecord> {
  const l = live(state);
  for (const place of l.places) {
    const job = jobAt(state, place);
    if (job) yield job;
  }
  for (let place = l.from; place < state.job_order.length; place++) {
    const job = jobAt(state, place);
    if (job) yield job;
  }
}

/** Runs `step` on every job that may not be terminal (as maybeLive), then keeps only those still not terminal. */
export function passOverLive(
  state: SimStateData,
  isTerminal: (job: JobRecord) => boolean,
  step: (job: JobRecord) => void,
): void {
  const l = live(state);
  const still: number[] = [];
  const visit = (place: number) => {
    const job = jobAt(state, place);
    if (!job || isTerminal(job)) return;
    step(job);
    if (!isTerminal(job)) still.push(place);
  };
  for (const place of l.places) visit(place);
  let place = l.from;
  for (; place < state.job_order.length; place++) visit(place);
  l.places = still;
  l.from = place;
}
