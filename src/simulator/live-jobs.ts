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
 * The places of every job that may not be terminal, in `job_order` order: those live at the last pass, then every
 * one from where it stopped, up to the list's end as it is when reached (a finished profiling run may append a
 * generation job, which must advance in the same pass).
 */
function* placesOf(state: SimStateData, l: Live): Generator<number> {
  yield* l.places;
  for (let place = l.from; place < state.job_order.length; place++) yield place;
}

/** Every job that may not be terminal, as placesOf. */
export function* maybeLive(state: SimStateData): Generator<JobRecord> {
  for (const place of placesOf(state, live(state))) {
    const job = jobAt(state, place);
    if (job) yield job;
  }
}

/** Runs `step` on every job not terminal (as maybeLive), then keeps only those still not terminal. */
export function passOverLive(
  state: SimStateData,
  isTerminal: (job: JobRecord) => boolean,
  step: (job: JobRecord) => void,
): void {
  const l = live(state);
  const still: number[] = [];
  for (const place of placesOf(state, l)) {
    const job = jobAt(state, place);
    if (!job || isTerminal(job)) continue;
    step(job);
    if (!isTerminal(job)) still.push(place);
  }
  l.places = still;
  l.from = state.job_order.length;
}
