/**
 * The seeded explorer: `npm run explore -- --seeds N [--seed S] [--lanes L] [--sole-writer] [--calm] [--evidence DIR]`.
 * Draws each seed's schedule (draw.ts), runs it against a real Temporal dev server, the simulator and worker processes
 * (run-seed.ts), and judges it (oracle.ts). A failing seed prints the one command that replays it, and leaves its
 * evidence in DIR (evidence.ts). Lanes run seeds side by side, each in a world of its own. Prints the schedule mix,
 * the failures, and the cancel latency by state at the end, when stopped, or when stranded (lanes waiting on what
 * nothing can settle).
 */
import { parseArgs } from 'node:util';
import { calm, draw, drawSoleWriter, mixOf, type Schedule } from './draw.js';
import { judge, type Verdict } from './oracle.js';
import { keepEvidence } from './evidence.js';
import { runSeed, startExploreWorld } from './run-seed.js';

export interface SeedOutcome {
  seed: number;
  verdict: Verdict;
  mix: string[];
  ms: number;
}

/** The worlds running now: closed on SIGINT or SIGTERM, so that no server or worker outlives the explorer. */
const worlds = new Set<{ close: () => Promise<void> }>();

/** Whether SIGINT or SIGTERM is closing the worlds: what fails then is their closing, already summed up. */
let stopping = false;

/** What each lane is doing now (starting its world, a seed, closing its world): said if the run strands (below). */
const laneAt = new Map<number, string>();

/**
 * Calls `report` if the process is about to exit before `ended()`: every lane then waits on a promise that nothing
 * left (no timer, socket or process) can settle, and Node would otherwise exit at once, silently, with code 0.
 */
export function onStranded(ended: () => boolean, report: () => void): void {
  process.once('beforeExit', () => {
    if (ended()) return;
    report();
    process.exitCode = 3;
  });
}

/**
 * Runs `seeds` in `lanes` worlds side by side, starting none after `until` (epoch ms); `onSeed` hears each as it ends.
 */
export async function explore(
  seeds: number[],
  lanes: number,
  onSeed: (o: SeedOutcome) => void = () => {},
  until = Infinity,
  drawOf: (seed: number) => Schedule = draw,
  evidenceDir?: string,
): Promise<SeedOutcome[]> {
  const todo = [...seeds];
  const out: SeedOutcome[] = [];
  await Promise.all(
    Array.from({ length: Math.min(lanes, seeds.length) }, async (_, lane) => {
      if (Date.now() >= until) return; // the budget is spent: no world either
      laneAt.set(lane, 'starting its world');
      const world = await startExploreWorld();
      worlds.add(world);
      try {
        for (let seed = todo.shift(); seed !== undefined && Date.now() < until; seed = todo.shift()) {
          const schedule = drawOf(seed);
          laneAt.set(lane, `running seed ${seed}`);
          const began = Date.now();
          let verdict: Verdict;
          try {
            const run = await runSeed(world, schedule);
            verdict = judge(run);
            if (verdict.violations.length && evidenceDir)
              verdict.violations.push(`evidence: ${await keepEvidence(world.client, run, verdict, evidenceDir)}`);
          } catch (err) {
            verdict = {
              violations: [`the seed did not run: ${(err as Error).stack ?? String(err)}`],
              cancelLatency: [],
            };
          }
          const o = { seed, verdict, mix: mixOf(schedule), ms: Date.now() - began };
          out.push(o);
          onSeed(o);
        }
      } finally {
        worlds.delete(world);
        laneAt.set(lane, 'closing its world');
        await world.close();
        laneAt.delete(lane);
      }
    }),
  );
  return out.sort((a, b) => a.seed - b.seed);
}

/** How a run draws its schedules beyond the seed: `--sole-writer`, `--calm` (draw.ts). */
export interface Drawing {
  soleWriter: boolean;
  calm: boolean;
}

/** The command that replays seed `seed`, drawn as `how` (@default as drawn: neither). */
export const replayCommand = (seed: number, how: Drawing = { soleWriter: false, calm: false }) =>
  `npm run explore -- --seed ${seed}${how.soleWriter ? ' --sole-writer' : ''}${how.calm ? ' --calm' : ''}`;

/** The schedule of a seed, drawn as `how`. */
export const drawing =
  (how: Drawing) =>
  (seed: number): Schedule => {
    const s = how.soleWriter ? drawSoleWriter(seed) : draw(seed);
    return how.calm ? calm(s) : s;
  };

/** The seeds over 2 s a latency line names, so that they can be replayed: the slowest first, at most this many. */
const SLOW_NAMED = 8;

/** Percentiles of the cancel latency, by the state the job was in, and the seeds of the slowest over 2 s. */
export function latencyTable(outcomes: SeedOutcome[]): string[] {
  const by = new Map<string, { ms: number; seed: number }[]>();
  for (const { seed, verdict } of outcomes)
    for (const { state, ms } of verdict.cancelLatency) by.set(state, [...(by.get(state) ?? []), { ms, seed }]);
  return [...by].map(([state, xs]) => {
    xs.sort((a, b) => a.ms - b.ms);
    const q = (p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]!.ms;
    const over = xs.filter((x) => x.ms > 2_000);
    const slowest = [...new Set(over.reverse().map((x) => x.seed))].slice(0, SLOW_NAMED);
    const named = slowest.length ? ` (seeds ${slowest.join(', ')})` : '';
    return `${state}: n=${xs.length} p50=${q(0.5)} ms p90=${q(0.9)} ms max=${q(1)} ms, over 2 s: ${over.length}${named}`;
  });
}

/** Prints what `outcomes` add up to (count, mix, cancel latency by state, the failed seeds' replays); answers those. */
export function summary(outcomes: SeedOutcome[], ms: number, how: Drawing, print = console.log): SeedOutcome[] {
  const mix = new Map<string, number>();
  for (const m of outcomes.flatMap((o) => o.mix)) mix.set(m, (mix.get(m) ?? 0) + 1);
  const failed = outcomes.filter((o) => o.verdict.violations.length > 0);
  print(`\n${outcomes.length} seeds in ${(ms / 1000).toFixed(0)} s, ${failed.length} failed`);
  print(
    `schedule mix: ${[...mix]
      .sort()
      .map(([k, n]) => `${k}=${n}`)
      .join(', ')}`,
  );
  print(`cancel latency by state:\n  ${latencyTable(outcomes).join('\n  ')}`);
  for (const f of failed) print(`failed: ${replayCommand(f.seed, how)}`);
  return failed;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seeds: { type: 'string', default: '10' },
      seed: { type: 'string' },
      from: { type: 'string', default: '1' },
      lanes: { type: 'string', default: '1' },
      minutes: { type: 'string' },
      'sole-writer': { type: 'boolean', default: false },
      calm: { type: 'boolean', default: false },
      evidence: { type: 'string' },
    },
  });
  // With a time budget, seeds run until it is spent (no new seed starts after it), however many that is.
  const minutes = values.minutes === undefined ? undefined : Number(values.minutes);
  if (minutes !== undefined && !(minutes > 0))
    throw new Error(`--minutes takes a positive number, got ${values.minutes}`);
  const count = minutes !== undefined && values.seeds === '10' ? 1_000_000 : Number(values.seeds);
  const from = Number(values.from);
  const lanes = Number(values.lanes);
  for (const [flag, v] of [
    ['--seeds', count],
    ['--from', from],
    ['--lanes', lanes],
  ] as const)
    if (!Number.isInteger(v) || v < 1) throw new Error(`${flag} takes a whole number from 1, got ${String(v)}`);
  const seeds = values.seed !== undefined ? [Number(values.seed)] : Array.from({ length: count }, (_, i) => from + i);
  if (seeds.some((s) => !Number.isInteger(s) || s < 0))
    throw new Error(`--seed takes a whole number, got ${values.seed}`);
  const started = Date.now();
  const how = { soleWriter: values['sole-writer'], calm: values.calm };
  // Stopped early, a long run still prints what its finished seeds add up to.
  const done: SeedOutcome[] = [];
  const soFar = () => summary(done, Date.now() - started, how);
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      soFar();
      // The lanes' clients fail as their worlds close under them (a gRPC retry: "Channel has been shut down"): after
      // the summary, nothing they say is news.
      process.on('unhandledRejection', () => undefined);
      stopping = true;
      void Promise.allSettled([...worlds].map((w) => w.close())).then(() => process.exit(130));
    });
  const until = minutes === undefined ? Infinity : started + minutes * 60_000;
  let ended = false;
  onStranded(
    () => ended,
    () => {
      const where = [...laneAt].map(([lane, at]) => `lane ${lane + 1} ${at}`).join(', ');
      console.log(`\nstranded: the run's lanes wait on what nothing left can settle (${where || 'no lane'})`);
      soFar();
    },
  );
  const outcomes = await explore(
    seeds,
    lanes,
    (o) => {
      if (stopping) return; // its world closed under it: not a verdict
      done.push(o);
      const bad = o.verdict.violations.length > 0;
      console.log(`seed ${o.seed}: ${bad ? 'FAILED' : 'clean'} in ${(o.ms / 1000).toFixed(1)} s`);
      for (const v of o.verdict.violations) console.log(`  ${v}`);
      if (bad) console.log(`  replay: ${replayCommand(o.seed, how)}`);
    },
    until,
    drawing(how),
    values.evidence,
  ).finally(() => (ended = true)); // a lane's failure is said by main's catch
  const failed = summary(outcomes, Date.now() - started, how).length;
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1]?.endsWith('explore/main.js'))
  main().catch((err: unknown) => {
    if (stopping) return;
    console.error((err as Error).message);
    process.exitCode = 2;
  });
