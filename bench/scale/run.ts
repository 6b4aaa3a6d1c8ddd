/**
 * `npm run bench:scale`: N concurrent data-quality pipelines on one worker against a plain async loop making the same
 * calls with the same client, side by side in one run (interleaved), on the dev server (in memory) and the simulator;
 * then a capacity run that holds many pipelines waiting and reads the worker's memory per waiting workflow.
 * Nothing passes or fails: the machine is shared, so the figures are ratios measured together.
 *
 *   npm run bench:scale -- [--n 10,100,1000] [--capacity 5000] [--capacity-cache N] [--capacity-promotion 20000]
 *     [--poll-ms 1000] [--run-ms 5000] [--run-spread-ms 0] [--rounds 1] [--input '{"statusReports":0}']
 *     [--worker-env K=V,K=V] [--server-config K=V,K=V] [--no-floor] [--fresh-targets]
 */
import { parseArgs } from 'node:util';
import { ServiceClient } from '../../src/api/index.js';
import { DEFAULT_MAX_CACHED_WORKFLOWS } from '../../src/config/worker.js';
import type { DataQualityPipelineResult } from '../../src/contract/index.js';
import { SEED_USERS, defaultSeed, type SeedInput } from '../../src/simulator/index.js';
import { bulkSuites } from '../../test/helpers/bulk-seed.js';
import { startWorld, type World } from '../../test/helpers/matrix-world.js';
import { plainPipeline, type Target } from './loop.js';
import { cpuSeconds, f, loadAverage, memoryMiB, percentile, pooled } from './measure.js';
import { historyFigures, results, startPipelines } from './pipelines.js';
import { delta, perPipeline, scrape, type Counts } from './server-metrics.js';
import { runFloor, startFloorWorker } from './floor.js';
import { jobMsOf, planRunTimes } from './durations.js';
import { capacityRun } from './capacity.js';

const { values } = parseArgs({
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
  },
});
const sizes = values.n.split(',').map(Number);
const capacity = Number(values.capacity);
const pollMs = Number(values['poll-ms']);
const runMs = Number(values['run-ms']);
const rounds = Number(values.rounds);
/** How much longer than `runMs` a job may run (durations.ts): 0, every job the same. */
const spreadMs = Number(values['run-spread-ms']);
/** Whether to run the Temporal floor (floor.ts) beside each N: `--no-floor` leaves it out. */
const floor = values.floor;
/**
 * Whether every batch (each N, each round) gets table groups and suites of its own (`--fresh-targets`): by default
 * the batches share the first N, as scheduled pipelines reuse theirs, and reuse the per-target lock ids.
 */
const freshTargets = values['fresh-targets'];
/** The capacity worker's DATAOPS_MAX_CACHED_WORKFLOWS: the worker's default unless given. */
const capacityCache = values['capacity-cache'] === undefined ? undefined : Number(values['capacity-cache']);
/** Definitions promoted on the capacity worker once every pipeline waits (promotion.ts); 0 leaves it out. */
const promotion = Number(values['capacity-promotion']);
if (
  ![...sizes, capacity, pollMs, runMs, spreadMs, rounds, capacityCache ?? 0, promotion].every(
    (v) => Number.isInteger(v) && v >= 0,
  )
)
  throw new Error(
    '--n, --capacity, --capacity-cache, --capacity-promotion, --poll-ms, --run-ms, --run-spread-ms and --rounds take whole numbers',
  );

/** Fields added to every pipeline's input (what a caller may set: statusReports, waitStrategy, testGeneration…). */
const extraInput = JSON.parse(values.input) as Record<string, unknown>;
if (typeof extraInput !== 'object' || extraInput === null || Array.isArray(extraInput))
  throw new Error('--input takes a JSON object of pipeline input fields');
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
/** Variables for the worker beyond the benchmark's own (DATAOPS_SEARCH_ATTRIBUTES=off…). */
const extraEnv = pairs('--worker-env', values['worker-env']);
/** Dev server dynamic config values beyond its defaults (system.enableActivityEagerExecution=true…). */
const serverConfig = pairs('--server-config', values['server-config']);

const hex = (i: number) => i.toString(16).padStart(12, '0');
function scaleSeed(n: number): { seed: SeedInput; targets: Target[] } {
  const targets = Array.from({ length: n }, (_, i) => ({
    tableGroupId: `a5000000-0000-4000-8000-${hex(i)}`,
    testSuiteId: `b5000000-0000-4000-8000-${hex(i)}`,
  }));
  // The bulk suites the capacity run promotes (promotion.ts), when it does.
  const bulk = promotion > 0 && capacity > 0 ? bulkSuites(promotion) : { table_groups: [], test_suites: [] };
  return {
    targets,
    seed: {
      ...defaultSeed,
      table_groups: [
        ...bulk.table_groups,
        ...targets.map((t, i) => ({
          id: t.tableGroupId,
          name: `scale-${i}`,
          project_code: 'DEMO',
          schema_name: `scale_${i}`,
          tables: [{ name: 'facts', columns: ['id', 'amount'], record_ct: 1_000 }],
        })),
      ],
      test_suites: [
        ...bulk.test_suites,
        ...targets.map((t, i) => ({
          id: t.testSuiteId,
          name: `scale-${i}`,
          project_code: 'DEMO',
          table_group_id: t.tableGroupId,
          definitions: [{ test_type: 'Unique', table_name: 'facts', column_name: 'id' }],
        })),
      ],
    },
  };
}

interface Side {
  wallS: number;
  cpu: Record<string, number>;
  requests: number;
  lags: number[];
  failures: number;
  events?: number[];
  server: Counts;
}

const pids = (w: World, worker: number) => ({
  worker,
  server: w.temporal.proc!.child.pid!,
  simulator: w.sim.proc!.child.pid!,
  bench: process.pid,
});

async function measured(
  w: World,
  worker: number,
  body: () => Promise<Omit<Side, 'wallS' | 'cpu' | 'requests' | 'server'>>,
) {
  const p = pids(w, worker);
  const server0 = await scrape(w.temporalMetricsUrl);
  const cpu0 = Object.fromEntries(Object.entries(p).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const req0 = (await w.controls.call<{ requests: number }>('GET', '/_sim/counters')).requests;
  const t0 = performance.now();
  const out = await body();
  const wallS = (performance.now() - t0) / 1000;
  const cpu = Object.fromEntries(Object.entries(p).map(([k, pid]) => [k, cpuSeconds(pid) - cpu0[k]!]));
  const requests = (await w.controls.call<{ requests: number }>('GET', '/_sim/counters')).requests - req0;
  const server = delta(server0, await scrape(w.temporalMetricsUrl));
  return { ...out, wallS, cpu, requests, server };
}

async function main(): Promise<void> {
  const largest = Math.max(...sizes, capacity, 1);
  // With fresh targets, the warm-up pipeline has the first one to itself, then every round of every N its own.
  const fresh = 1 + rounds * sizes.reduce((a, b) => a + b, 0);
  const { seed, targets } = scaleSeed(freshTargets ? Math.max(fresh, largest) : largest);
  let nextTarget = freshTargets ? 1 : 0;
  const batchOf = (n: number) => (freshTargets ? targets.slice(nextTarget, (nextTarget += n)) : targets.slice(0, n));
  const w = await startWorld(seed, { temporalDb: 'memory', simState: 'none', serverConfig });
  const workerEnv = {
    DATAOPS_TIMEOUT_MS: '30000',
    DATAOPS_SUBMIT_SETTLE_MS: '60000',
    DATAOPS_HEARTBEAT_THROTTLE_MS: '5000', // the worker's default (the test helpers use 500)
    DATAOPS_MAX_CONCURRENT_WAITS: String(Math.max(2_000, 2 * Math.max(...sizes))),
    LOG_LEVEL: 'ERROR',
    ...extraEnv,
  };
  const client = new ServiceClient({ baseUrl: w.controls.url, credentials: { ...SEED_USERS.admin } });
  const lines: string[] = [];
  const serverWork: string[] = [];
  const lagWork: string[] = [];
  const floorLines: string[] = [];
  try {
    await w.controls.jobDurations({ pendingMs: 500, claimMs: 500, runMs, cancelMs: 200, interruptMs: 200 });
    const queue = 'scale';
    const worker = w.startWorker(queue, workerEnv);
    const workerPid = worker.child.pid!;
    const floorWorker = floor ? await startFloorWorker(w, DEFAULT_MAX_CACHED_WORKFLOWS) : undefined;
    await results(
      w.client,
      await startPipelines(w.client, queue, 'warm', targets.slice(0, 1), { pollIntervalMs: pollMs, extra: extraInput }),
    );
    await client.login();
    lines.push(
      `jobs: pending 0.5 s, claimed 0.5 s, running ${runMs / 1000}${spreadMs ? `–${(runMs + spreadMs) / 1000}` : ''} s; polls every ${pollMs / 1000} s; ` +
        `2 jobs per pipeline; ${rounds} round(s), loop and worker alternating; ` +
        `targets ${freshTargets ? 'fresh for each batch' : 'shared by the batches'}; ` +
        `pipeline input beyond the defaults: ${values.input}; worker variables added: ${values['worker-env'] || 'none'}; ` +
        `server config added: ${values['server-config'] || 'none'}`,
      '',
      '| N | wall: worker / loop | CPU s: worker + server (+ sim) vs loop (+ sim) | HTTP requests: worker / loop | detection lag p50 / p99 (worker; loop) | history events / pipeline | failures (worker / loop) | worker peak RSS |',
      '|---|---|---|---|---|---|---|---|',
    );
    let run = 0;
    for (const n of sizes) {
      for (let r = 0; r < rounds; r++) {
        const batch = batchOf(n);
        const sides: Record<'loop' | 'worker', Side> = {} as never;
        const order: ('loop' | 'worker')[] = run++ % 2 === 0 ? ['loop', 'worker'] : ['worker', 'loop'];
        for (const side of order) {
          await planRunTimes(w.controls, batch, runMs, spreadMs);
          if (side === 'loop')
            sides.loop = await measured(w, workerPid, async () => {
              const settled = await pooled(batch, n, (t) => plainPipeline(client, t, pollMs));
              const ok = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
              return { lags: ok.flat(), failures: n - ok.length };
            });
          else {
            let ids: string[] = [];
            let outcomes: DataQualityPipelineResult[] = [];
            const side = await measured(w, workerPid, async () => {
              ids = await startPipelines(w.client, queue, `n${n}-r${r}`, batch, {
                pollIntervalMs: pollMs,
                extra: extraInput,
              });
              const settled = await results(w.client, ids);
              outcomes = settled.map((s) => (s.status === 'fulfilled' ? s.value : (undefined as never)));
              return { lags: [], failures: settled.filter((s) => s.status === 'rejected').length };
            });
            const figures = await historyFigures(w.client, ids, outcomes);
            const { profiling, testRun } = figures.lags;
            sides.worker = { ...side, lags: [...profiling, ...testRun], events: figures.events };
            const ran = outcomes
              .flatMap((o) => (o ? [o.profiling.job.wait.job, o.testRun.job.wait.job] : []))
              .map((j) => (Date.parse(j.completed_at ?? '') - Date.parse(j.started_at ?? '')) / 1000)
              .filter(Number.isFinite);
            lagWork.push(
              `N = ${n}: jobs ran ${f(Math.min(...ran), 1)}–${f(Math.max(...ran), 1)} s; ` +
                `profiling ${f(percentile(profiling, 50), 0)} / ${f(percentile(profiling, 99), 0)} ms ` +
                `(its wait also reads the summary and submits the test run), ` +
                `test run ${f(percentile(testRun, 50), 0)} / ${f(percentile(testRun, 99), 0)} ms`,
            );
          }
        }
        const { loop, worker: wk } = sides;
        if (floorWorker) {
          const fl = await measured(w, floorWorker.child.pid!, async () => ({
            lags: [],
            failures: await runFloor(w, `n${n}-r${r}`, n, (i) => jobMsOf(runMs, spreadMs, i)),
          }));
          floorLines.push(
            `| ${n} | ${f(fl.wallS)} s / ${f(loop.wallS)} s = **${f(fl.wallS / loop.wallS, 2)}×** ` +
              `| ${f(fl.cpu.worker!)} + ${f(fl.cpu.server!)} | ${f(wk.wallS / fl.wallS, 2)}× | ${fl.failures} |`,
          );
          serverWork.push(`N = ${n}, the floor: ${perPipeline(fl.server, n)}`);
          console.log(floorLines.at(-1));
        }
        const mem = memoryMiB(workerPid);
        const line =
          `| ${n} | ${f(wk.wallS)} s / ${f(loop.wallS)} s = **${f(wk.wallS / loop.wallS, 2)}×** ` +
          `| ${f(wk.cpu.worker!)} + ${f(wk.cpu.server!)} (+ ${f(wk.cpu.simulator!)}) vs ${f(loop.cpu.bench!)} (+ ${f(loop.cpu.simulator!)}) ` +
          `| ${wk.requests} / ${loop.requests} = ${f(wk.requests / loop.requests, 2)}× ` +
          `| ${f(percentile(wk.lags, 50), 0)} / ${f(percentile(wk.lags, 99), 0)} ms; ${f(percentile(loop.lags, 50), 0)} / ${f(percentile(loop.lags, 99), 0)} ms ` +
          `| ${f(percentile(wk.events!, 50), 0)} (max ${Math.max(...wk.events!)}) | ${wk.failures} / ${loop.failures} | ${f(mem.peak, 0)} MiB |`;
        lines.push(line);
        serverWork.push(`N = ${n}: ${perPipeline(wk.server, n)}`);
        console.log(line, `load ${loadAverage()}`);
        console.log(serverWork.at(-1));
      }
    }
    await worker.stop('SIGTERM');
    await floorWorker?.stop('SIGTERM');
    if (floorLines.length)
      lines.push(
        '',
        `The Temporal floor: N workflows of two activities that each sleep as long as a job, ` +
          'on a worker of their own (bench/scale/floor-workflow.ts):',
        '',
        '| N | wall: floor / loop | CPU s: floor worker + server | our worker / the floor | failures |',
        '|---|---|---|---|---|',
        ...floorLines,
      );
    lines.push(
      '',
      'The Temporal server, per pipeline (its /metrics, frontend requests and persistence operations):',
      '',
    );
    lines.push(...serverWork.map((l) => `- ${l}`));
    lines.push(
      '',
      'How long the jobs ran, and the detection lag by job, p50 / p99 (every pipeline):',
      '',
      ...lagWork.map((l) => `- ${l}`),
    );
    if (capacity > 0)
      lines.push('', await capacityRun(w, targets.slice(0, capacity), workerEnv, capacityCache, extraInput, promotion));
  } finally {
    client.close();
    await w.close();
  }
  console.log(['', ...lines, '', `load average (1 min) at the end: ${loadAverage()}`].join('\n'));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
