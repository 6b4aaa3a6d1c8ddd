/**
 * The scale benchmark's options (run.ts), checked: a wrong one stops the run before anything starts.
 *
 *   npm run bench:scale -- [--n 10,100,1000] [--capacity 5000] [--capacity-cache N] [--capacity-promotion 20000]
 *     [--poll-ms 1000] [--run-ms 5000] [--run-spread-ms 0] [--rounds 1] [--input '{"statusReports":0}']
 *     [--worker-env K=V,K=V] [--server-config K=V,K=V] [--no-floor] [--fresh-targets | --same-target] [--bound 0,1,2,3,4,5,6,7]
 */
import { parseArgs } from 'node:util';
import { DEFAULT_HEARTBEAT_THROTTLE_MS } from '../../src/config/worker.js';

/** `K=V,K=V` as pairs; `flag` names the option in the error. */
function pairs(flag: string, text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split(',')
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=');
        if (at < 1) throw new Error(`${flag} takes K=V pairs separated by commas, not "${pair}"`);
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
  );
}

/** The options in `args` (the command line after the script), with their defaults; throws naming a wrong one. */
export function benchOptions(args: string[]) {
  const { values } = parseArgs({
    args,
    allowNegative: true,
    options: {
      n: { type: 'string', default: '10,100,1000' },
      capacity: { type: 'string', default: '5000' },
      'poll-ms': { type: 'string', default: '1000' },
      'run-ms': { type: 'string', default: '5000' },
      'run-spread-ms': { type: 'string', default: '0' },
      rounds: { type: 'string', default: '1' },
      'capacity-cache': { type: 'string' },
      'capacity-promotion': { type: 'string', default: '20000' },
      input: { type: 'string', default: '{}' },
      'worker-env': { type: 'string', default: '' },
      'server-config': { type: 'string', default: '' },
      floor: { type: 'boolean', default: true },
      'fresh-targets': { type: 'boolean', default: false },
      'same-target': { type: 'boolean', default: false },
      bound: { type: 'string', default: '' },
    },
  });
  const numbers = {
    sizes: values.n.split(',').map(Number),
    capacity: Number(values.capacity),
    pollMs: Number(values['poll-ms']),
    runMs: Number(values['run-ms']),
    /** How much longer than `runMs` a job may run (durations.ts): 0, every job the same. */
    spreadMs: Number(values['run-spread-ms']),
    rounds: Number(values.rounds),
    /** The capacity worker's DATAOPS_MAX_CACHED_WORKFLOWS: the worker's default unless given. */
    capacityCache: values['capacity-cache'] === undefined ? undefined : Number(values['capacity-cache']),
    /** Definitions promoted on the capacity worker once every pipeline waits (promotion.ts); 0 leaves it out. */
    promotion: Number(values['capacity-promotion']),
  };
  const { sizes, capacityCache, ...single } = numbers;
  if (![...sizes, ...Object.values(single), capacityCache ?? 0].every((v) => Number.isInteger(v) && v >= 0))
    throw new Error(
      '--n, --capacity, --capacity-cache, --capacity-promotion, --poll-ms, --run-ms, --run-spread-ms and --rounds take whole numbers',
    );
  // A batch of no pipelines, no poll interval or no round measures nothing (its ratios would print as NaN).
  if (![...sizes, numbers.pollMs, numbers.rounds].every((v) => v >= 1))
    throw new Error('--n (each size), --poll-ms and --rounds take whole numbers from 1');
  /** Fields added to every pipeline's input (what a caller may set: statusReports, waitStrategy, testGeneration…). */
  const extraInput = ((): unknown => {
    try {
      return JSON.parse(values.input);
    } catch (err) {
      throw new Error(`--input is not JSON: ${(err as Error).message}`, { cause: err });
    }
  })() as Record<string, unknown>;
  if (typeof extraInput !== 'object' || extraInput === null || Array.isArray(extraInput))
    throw new Error('--input takes a JSON object of pipeline input fields');
  if (values['same-target'] && values['fresh-targets'])
    throw new Error('--same-target and --fresh-targets contradict each other: give one');
  if (values.bound && !/^[0-7](,[0-7])*$/.test(values.bound))
    throw new Error(
      `--bound takes shapes (0, 1 or 2 locks; 3: a submitter; 4: a submitter recording each send; 5: and each job named to its workflow; 6: and our input check and progress upserts; 7: one path, the test run through its submitter too) separated by commas, not "${values.bound}"`,
    );
  return {
    ...numbers,
    /**
     * The bound's shapes to run before each batch (bound.ts): by their lock counts, 0, 1 (profiling) or 2; or 3, the
     * profiling run through a per-target submitter workflow (bound-submitter.ts); or 4, the same with each send
     * recorded at the submitter before it leaves; or 5, that with the test run named to its workflow; or 6, that with
     * our input check (a local activity) and the two progress upserts; or 7, shape 6 on one path: the test run through
     * its suite's submitter too, each job waited by an activity of its own (bound-workflow.ts).
     */
    bound: values.bound ? values.bound.split(',').map(Number) : [],
    /** Whether to run the Temporal floor (floor.ts) beside each N: `--no-floor` leaves it out. */
    floor: values.floor,
    /**
     * Whether every batch (each N, each round) gets table groups and suites of its own (`--fresh-targets`): by
     * default the batches share the first N, as scheduled pipelines reuse theirs, and reuse the per-target lock ids.
     */
    freshTargets: values['fresh-targets'],
    /**
     * Whether every pipeline of a batch runs on one table group and one suite (`--same-target`), as pipelines
     * scheduled on the same data do: what serialising submissions per target costs.
     */
    sameTarget: values['same-target'],
    extraInput,
    /** Variables for the worker beyond the benchmark's own (DATAOPS_SEARCH_ATTRIBUTES=off…). */
    extraEnv: pairs('--worker-env', values['worker-env']),
    /** Dev server dynamic config values beyond its defaults (system.enableActivityEagerExecution=true…). */
    serverConfig: pairs('--server-config', values['server-config']),
    /** The options as given, for the run's header line. */
    given: values,
  };
}

/**
 * The worker's variables in a run: the worker's own heartbeat throttle (the test helper that starts worker processes
 * throttles to 500 ms, which would count heartbeats that no worker run with its defaults sends), room for every wait,
 * then `--worker-env`.
 */
export function workerEnvOf(sizes: number[], extraEnv: Record<string, string>): Record<string, string> {
  return {
    DATAOPS_HEARTBEAT_THROTTLE_MS: String(DEFAULT_HEARTBEAT_THROTTLE_MS),
    DATAOPS_TIMEOUT_MS: '30000',
    DATAOPS_SUBMIT_SETTLE_MS: '60000',
    DATAOPS_MAX_CONCURRENT_WAITS: String(Math.max(2_000, 2 * Math.max(...sizes))),
    LOG_LEVEL: 'ERROR',
    ...extraEnv,
  };
}
