/**
 * What one explorer seed runs: a schedule drawn from the seed alone, so that the seed replays it. A few targets and
 * several requesters on them; faults on the HTTP calls of submission, lookup, waiting and cancel; worker kills and
 * freezes;
 * cancels (some with `cancelRemoteJob: false`); jobs of other callers on the same targets (another API client of the
 * same account, the scheduler); a listing made longer than 1,000 jobs; the service's clock ahead of the worker's.
 */
import type { FaultInput } from '../../src/simulator/faults.js';
import type { ForeignJobs } from '../../src/simulator/foreign-jobs.js';

/** A small fast generator (mulberry32): the same seed, the same draws. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)]!;
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}

export type Kind = 'profile' | 'tests' | 'pipeline' | 'order';

export interface Requester {
  name: string;
  kind: Kind;
  /** The cell (table group and suites) it works on. */
  cell: number;
  startAt: number;
  waitStrategy: 'heartbeat' | 'deferrable';
  statusReports: number;
  /** When the explorer cancels it (ms after the seed began), if it does. */
  cancelAt?: number;
  /** Cancelled with `cancelRemoteJob: false`: its job is to be left running, and the workflow to end cancelled. */
  leaveRunning?: true;
}

export type Step =
  | { at: number; what: 'fault'; fault: FaultInput }
  | { at: number; what: 'kill'; worker: number; downMs: number }
  /** A worker stopped (SIGSTOP) and let go on (SIGCONT): a pause past a heartbeat timeout, not a death. */
  | { at: number; what: 'freeze'; worker: number; frozenMs: number }
  | { at: number; what: 'foreign'; jobs: Omit<ForeignJobs, 'target_id'> & { cell: number; as: 'scheduler' | 'api' } }
  | { at: number; what: 'long-listing'; count: number }
  | { at: number; what: 'person-order' };

export interface Schedule {
  seed: number;
  cells: number;
  /** How far the service's clock runs ahead of the worker's (ms). */
  skewMs: number;
  requesters: Requester[];
  steps: Step[];
  /**
   * Whether the workers' profile declares itself its targets' only writer (DATAOPS_SOLE_WRITER): never on a seed with
   * another writer (another API client of the account, a person's order), and on two in three of the others. Not
   * drawn, so that adding it left every seed's schedule as it was.
   */
  soleWriter: boolean;
}

/** The HTTP calls a fault can hit: submissions, an order's creation, the listings a lookup reads, a wait's polls, a cancel. */
const WHERE: { name: string; method: string; path: string }[] = [
  { name: 'submit profiling', method: 'POST', path: '/profiling-runs' },
  { name: 'submit tests', method: 'POST', path: '/test-runs' },
  { name: 'create order', method: 'PUT', path: '/v2/order/create' },
  { name: 'job listing', method: 'GET', path: '^/api/v1/projects/[^/]+/jobs$' },
  { name: 'job status', method: 'GET', path: '^/api/v1/jobs/[^/]+$' },
  { name: 'cancel', method: 'POST', path: '/cancel' },
  { name: 'order listing', method: 'GET', path: '/v2/order/status' },
];

const FAULTS = ['drop_after_commit', 'status', 'rate_limit', 'reset', 'delay', 'malformed_json'] as const;

/** Draws seed `seed`'s schedule. */
export function draw(seed: number): Schedule {
  const r = prng(seed);
  const cells = r.int(1, 2);
  const requesters: Requester[] = [];
  const n = r.int(2, 8);
  for (let i = 0; i < n; i++) {
    const kind = r.pick<Kind>(['profile', 'profile', 'tests', 'tests', 'pipeline', 'order']);
    const startAt = r.int(0, 3_000);
    requesters.push({
      name: `r${i}-${kind}`,
      kind,
      cell: r.int(0, cells - 1),
      startAt,
      waitStrategy: r.chance(0.25) ? 'deferrable' : 'heartbeat',
      statusReports: r.chance(0.3) ? 0 : 2,
      ...(r.chance(0.35) ? { cancelAt: startAt + r.int(0, 4_000) } : {}),
    });
  }
  const steps: Step[] = [];
  for (let i = r.int(1, 6); i > 0; i--) {
    // Most on the writes, where a lost answer matters most.
    const where = r.chance(0.6) ? r.pick(WHERE.slice(0, 3)) : r.pick(WHERE);
    const kind = r.chance(0.4) ? r.pick(['drop_after_commit', 'delay'] as const) : r.pick(FAULTS);
    const at = r.int(0, 6_000);
    steps.push({
      at,
      what: 'fault',
      fault: {
        kind,
        method: where.method,
        path: where.path,
        count: r.int(1, 2),
        skip: r.int(0, 3),
        ...(kind === 'status' ? { status: r.pick([500, 502, 503, 504]) } : {}),
        ...(kind === 'rate_limit' ? { retry_after: r.int(0, 2) } : {}),
        ...(kind === 'delay' ? { delay_ms: r.int(1_200, 3_000) } : {}), // past the worker's 1 s client timeout
      },
    });
    // What happens on the service while a lost answer is looked for: the dangerous instants, drawn near the fault.
    const soon = () => at + r.int(0, 4_000);
    const cell = r.int(0, cells - 1);
    if (where.path === '/v2/order/create' && r.chance(0.5)) steps.push({ at: soon(), what: 'person-order' });
    if (where.method === 'POST' && r.chance(0.4))
      steps.push({
        at: soon(),
        what: 'foreign',
        jobs: {
          job_key: where.path === '/test-runs' ? 'run-tests' : 'run-profile',
          cell,
          as: r.pick(['scheduler', 'api']),
        },
      });
    if (where.path === '/profiling-runs' && r.chance(0.3))
      steps.push({ at: soon(), what: 'long-listing', count: r.int(1_001, 1_300) });
  }
  for (let i = r.int(0, 2); i > 0; i--)
    steps.push({ at: r.int(500, 9_000), what: 'kill', worker: r.int(0, 1), downMs: r.int(0, 3_000) });
  for (let i = r.int(0, 2); i > 0; i--) {
    const as = r.pick(['scheduler', 'api'] as const);
    const jobKey = r.pick(['run-profile', 'run-tests'] as const);
    steps.push({ at: r.int(0, 8_000), what: 'foreign', jobs: { job_key: jobKey, cell: r.int(0, cells - 1), as } });
  }
  // A person's order of the same recipe and variation, through the service's own UI.
  if (requesters.some((q) => q.kind === 'order') && r.chance(0.2))
    steps.push({ at: r.int(0, 6_000), what: 'person-order' });
  // Half the cancels come while a fault holds or loses an answer: the instants where a cancel meets a send.
  const faultsAt = steps.filter((x) => x.what === 'fault').map((x) => x.at);
  for (const q of requesters)
    if (q.cancelAt !== undefined && r.chance(0.5)) q.cancelAt = Math.max(q.startAt, r.pick(faultsAt) + r.int(0, 2_500));
  steps.sort((a, b) => a.at - b.at);
  // Drawn from a stream of its own (added later), so that every seed's earlier draws stay as they were.
  const later = prng(seed ^ 0x5bd1e995);
  for (const q of requesters)
    if (q.cancelAt !== undefined && q.kind !== 'order' && later.chance(0.3)) q.leaveRunning = true;
  // A frozen worker: shorter than a batch's heartbeat timeout (20 s), or past it, when the batch is retried elsewhere
  // and the frozen attempt goes on once it wakes.
  if (later.chance(0.25)) {
    const frozenMs = later.chance(0.5) ? later.int(1_000, 8_000) : later.int(21_000, 25_000);
    steps.push({ at: later.int(500, 9_000), what: 'freeze', worker: later.int(0, 1), frozenMs });
    steps.sort((a, b) => a.at - b.at);
  }
  const skewMs = r.chance(0.3) ? r.int(1_000, 120_000) : 0;
  const otherWriter = steps.some((x) => (x.what === 'foreign' && x.jobs.as === 'api') || x.what === 'person-order');
  return { seed, cells, skewMs, requesters, steps, soleWriter: !otherWriter && seed % 3 !== 0 };
}

/**
 * Seed `seed`'s schedule with the workers' profile declared its targets' only writer, made true: another API client's
 * jobs become the scheduler's, and no person orders (`--sole-writer`: the declared resolution, explored on every seed).
 */
export function drawSoleWriter(seed: number): Schedule {
  const s = draw(seed);
  const steps = s.steps.flatMap((x): Step[] => {
    if (x.what === 'person-order') return [];
    return x.what === 'foreign' && x.jobs.as === 'api' ? [{ ...x, jobs: { ...x.jobs, as: 'scheduler' } }] : [x];
  });
  return { ...s, steps, soleWriter: true };
}

/**
 * `s` without what holds a cancel up but the machine (`--calm`): no HTTP faults, no worker killed or frozen. The rest
 * stays (the cancels at their instants, other writers, long listings, the clock ahead), so that the cancel latency it
 * gives is the mechanism's own, not a lost answer's settle window or a dead worker's timeouts.
 */
export const calm = (s: Schedule): Schedule => ({
  ...s,
  steps: s.steps.filter((x) => x.what !== 'fault' && x.what !== 'kill' && x.what !== 'freeze'),
});

/** One line per schedule, for the run's mix. */
export function mixOf(s: Schedule): string[] {
  return [
    ...s.requesters.map(
      (q) =>
        `requester:${q.kind}${q.cancelAt !== undefined ? '+cancel' : ''}${q.leaveRunning ? '(leave running)' : ''}`,
    ),
    ...s.steps.map((x) =>
      x.what === 'fault'
        ? `fault:${x.fault.kind}@${WHERE.find((w) => w.path === x.fault.path)?.name}`
        : x.what === 'foreign'
          ? `foreign:${x.jobs.as}`
          : x.what,
    ),
    ...(s.skewMs ? ['clock-skew'] : []),
    ...(s.soleWriter ? ['sole-writer'] : []),
    `cells:${s.cells}`,
  ];
}
