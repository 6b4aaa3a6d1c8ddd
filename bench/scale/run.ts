/**
 * `npm run bench:scale`: N concurrent data-quality pipelines on one worker against a plain async loop making the same
 * calls with the same client, side by side in one run (interleaved), on the dev server (in memory) and the simulator;
 * then a capacity run that holds many pipelines waiting and reads the worker's memory per waiting workflow.
 * Nothing passes or fails: the machine is shared, so the figures are ratios measured together.
 *
 *   npm run bench:scale -- [--n 10,100,1000] [--run-spread-ms 5000] [--no-floor] …   (every option: options.ts)
 */
import { ServiceClient } from '../../src/api/index.js';
import { DEFAULT_MAX_CACHED_WORKFLOWS } from '../../src/config/worker.js';
import type { DataQualityPipelineResult } from '../../src/contract/index.js';
import { SEED_USERS } from '../../src/simulator/index.js';
import { scaleSeed } from './seed.js';
import { startWorld } from '../../test/helpers/matrix-world.js';
import { plainPipeline } from './loop.js';
import { cpuPerPipeline, f, loadAverage, memoryMiB, percentile, pooled } from './measure.js';
import {
  historyFigures,
  registerSearchAttributes,
  results,
  startPipelines,
  timelinesOf,
  whileAlive,
  type Started,
} from './pipelines.js';
import { phaseLine } from './phases.js';
import { perPipeline, persistenceLoad } from './server-metrics.js';
import { actionsLine, costRow } from './actions.js';
import { measured, type Side } from './side.js';
import { floorStarts, runFloor, startFloorWorker } from './floor.js';
import { boundSides, startBoundWorker } from './bound.js';
import { retryLine } from './retries.js';
import { startLine, startSteps } from './start-phase.js';
import { PHASES, jobMsOf, planRunTimes } from './durations.js';
import { capacityRun } from './capacity.js';
import { benchOptions, workerEnvOf } from './options.js';

const {
  sizes,
  capacity,
  pollMs,
  runMs,
  spreadMs,
  rounds,
  floor,
  freshTargets,
  sameTarget,
  capacityCache,
  promotion,
  bound,
  extraInput,
  extraEnv,
  serverConfig,
  given,
} = ((): ReturnType<typeof benchOptions> => {
  try {
    return benchOptions(process.argv.slice(2));
  } catch (err) {
    console.error(`bench:scale: ${(err as Error).message}`);
    process.exit(2);
  }
})();

const began = Date.now();
/** Says on stderr which step the benchmark is at, so a run that hangs shows where (the tables go to stdout). */
const step = (what: string): void => console.error(`[bench:scale ${f((Date.now() - began) / 1000, 1)} s] ${what}`);
async function main(): Promise<void> {
  const largest = Math.max(...sizes, capacity, 1);
  // With fresh targets, the warm-up pipeline has the first one to itself, then every round of every N its own.
  const fresh = 1 + rounds * sizes.reduce((a, b) => a + b, 0);
  const { seed, targets } = scaleSeed(
    freshTargets ? Math.max(fresh, largest) : largest,
    promotion > 0 && capacity > 0 ? promotion : 0,
  );
  let nextTarget = freshTargets ? 1 : 0;
  const batchOf = (n: number) =>
    sameTarget
      ? Array.from({ length: n }, () => targets[0]!)
      : freshTargets
        ? targets.slice(nextTarget, (nextTarget += n))
        : targets.slice(0, n);
  step('starting the dev server and the simulator');
  const w = await startWorld(seed, { temporalDb: 'memory', simState: 'none', serverConfig });
  // Stopped from outside (a test's time limit, Ctrl-C): the servers and workers it started go with it.
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => {
      step(`${signal}: stopping its servers and workers`);
      void w.close().finally(() => process.exit(143));
    });
  const workerEnv = workerEnvOf(sizes, extraEnv);
  const client = new ServiceClient({ baseUrl: w.controls.url, credentials: { ...SEED_USERS.admin } });
  const lines: string[] = [];
  const serverWork: string[] = [];
  const lagWork: string[] = [];
  const phaseWork: string[] = [];
  const startWork: string[] = [];
  const retryWork: string[] = [];
  const floorLines: string[] = [];
  const costLines: string[] = [];
  const actionWork: string[] = [];
  try {
    await w.controls.jobDurations({ ...PHASES, runMs, cancelMs: 200, interruptMs: 200 });
    const queue = 'scale';
    const searchAttributes = await registerSearchAttributes(w.client, workerEnv);
    const worker = w.startWorker(queue, workerEnv);
    const workerPid = worker.child.pid!;
    const floorWorker = floor ? await startFloorWorker(w, DEFAULT_MAX_CACHED_WORKFLOWS) : undefined;
    const boundWorker = bound.length ? await startBoundWorker(w, DEFAULT_MAX_CACHED_WORKFLOWS) : undefined;
    step('the warm-up pipeline');
    const warm = startPipelines(w.client, queue, 'warm', targets.slice(0, 1), {
      pollIntervalMs: pollMs,
      extra: extraInput,
      searchAttributes,
    });
    await whileAlive(
      worker,
      warm.then((started) => results(w.client, started)),
    );
    await client.login();
    lines.push(
      `jobs: pending ${PHASES.pendingMs / 1000} s, claimed ${PHASES.claimMs / 1000} s, running ${runMs / 1000}${spreadMs ? `–${(runMs + spreadMs) / 1000}` : ''} s; polls every ${pollMs / 1000} s; ` +
        `2 jobs per pipeline; ${rounds} round(s), loop and worker alternating; ` +
        `pipelines started ${searchAttributes ? 'with' : 'without'} their first search attributes; ` +
        `targets ${sameTarget ? 'one table group and suite for every pipeline' : freshTargets ? 'fresh for each batch' : 'shared by the batches'}; ` +
        `pipeline input beyond the defaults: ${given.input}; worker variables added: ${given['worker-env'] || 'none'}; ` +
        `server config added: ${given['server-config'] || 'none'}`,
      '',
      '| N | wall: worker / loop | CPU s: worker + server (+ sim) vs loop (+ sim) | HTTP requests: worker / loop | detection lag p50 / p99 (worker; loop) | history events / pipeline | failures (worker / loop) | worker peak RSS |',
      '|---|---|---|---|---|---|---|---|',
    );
    let run = 0;
    for (const n of sizes) {
      for (let r = 0; r < rounds; r++) {
        const batch = batchOf(n);
        const plan = () => planRunTimes(w.controls, batch, runMs, spreadMs);
        const sides: Record<'loop' | 'worker', Side> = {} as never;
        // The bound goes first, on a dev server that holds no batch yet: the least any design reaches.
        step(`N = ${n}, round ${r + 1}: ${boundWorker ? 'the bound, then ' : ''}the loop and the worker`);
        const bounds = boundWorker
          ? await boundSides(w, boundWorker, bound, batch, `n${n}-r${r}`, pollMs, plan, searchAttributes)
          : [];
        serverWork.push(
          ...bounds.map(
            (b) =>
              `N = ${n}, the bound (${b.name}): ${perPipeline(b.server, n)}; ${persistenceLoad(b.server, b.wallS)}`,
          ),
        );
        let ourStarts: Record<string, number[]> = {};
        const order: ('loop' | 'worker')[] = run++ % 2 === 0 ? ['loop', 'worker'] : ['worker', 'loop'];
        for (const side of order) {
          const dropped = await plan();
          if (dropped) console.warn(`${dropped} job plan(s) left unused by the side before were dropped`);
          step(`N = ${n}, round ${r + 1}: ${side === 'loop' ? 'the plain loop' : 'our worker'}`);
          if (side === 'loop')
            sides.loop = await measured(w, workerPid, async () => {
              const t0 = Date.now();
              const settled = await pooled(batch, n, (t) => plainPipeline(client, t, pollMs, t0));
              const ok = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
              return { lags: ok.flatMap((o) => o.lags), timelines: ok.map((o) => o.timeline), failures: n - ok.length };
            });
          else {
            let pipelines: Started[] = [];
            let outcomes: DataQualityPipelineResult[] = [];
            const side = await measured(w, workerPid, async () => {
              const t0 = Date.now();
              pipelines = await startPipelines(w.client, queue, `n${n}-r${r}`, batch, {
                pollIntervalMs: pollMs,
                extra: extraInput,
                searchAttributes,
              });
              const { settled, endMs } = await whileAlive(worker, results(w.client, pipelines));
              outcomes = settled.map((s) => (s.status === 'fulfilled' ? s.value : (undefined as never)));
              const failures = settled.filter((s) => s.status === 'rejected').length;
              return { lags: [], timelines: timelinesOf(t0, outcomes, endMs), failures, t0 };
            });
            const figures = await historyFigures(w.client, pipelines, outcomes);
            ourStarts = startSteps(side.t0, figures.starts);
            retryWork.push(retryLine(n, figures.retried));
            const { profiling, testRun } = figures.lags;
            sides.worker = { ...side, lags: [...profiling, ...testRun], events: figures.events };
            lagWork.push(
              `N = ${n}: jobs ran ${f(Math.min(...figures.ranS), 1)}–${f(Math.max(...figures.ranS), 1)} s; ` +
                `profiling ${f(percentile(profiling, 50), 0)} / ${f(percentile(profiling, 99), 0)} ms ` +
                `(its wait also reads the summary), ` +
                `test run ${f(percentile(testRun, 50), 0)} / ${f(percentile(testRun, 99), 0)} ms`,
            );
          }
        }
        const { loop, worker: wk } = sides;
        let floorStartSteps: Record<string, number[]> | undefined;
        if (floorWorker) {
          step(`N = ${n}, round ${r + 1}: the Temporal floor`);
          const fl = await measured(w, floorWorker.child.pid!, async () => ({
            lags: [],
            timelines: [],
            ...(await runFloor(w, `n${n}-r${r}`, n, (i) => jobMsOf(runMs, spreadMs, i))),
          }));
          floorStartSteps = startSteps(fl.t0, await floorStarts(w, fl.ids));
          floorLines.push(
            `| ${n} | ${f(fl.wallS)} s / ${f(loop.wallS)} s = **${f(fl.wallS / loop.wallS, 2)}×** ` +
              `| ${f(fl.cpu.worker!)} + ${f(fl.cpu.server!)} | ${cpuPerPipeline(fl.cpu, wk.cpu, n)} | ${f(wk.wallS / fl.wallS, 2)}× | ${fl.failures} |`,
          );
          serverWork.push(`N = ${n}, the floor: ${perPipeline(fl.server, n)}; ${persistenceLoad(fl.server, fl.wallS)}`);
          console.log(floorLines.at(-1));
        }
        for (const b of bounds) {
          floorLines.push(
            `| ${n} (bound: ${b.name}) | ${f(b.wallS)} s / ${f(loop.wallS)} s = **${f(b.wallS / loop.wallS, 2)}×** ` +
              `| ${f(b.cpu.worker!)} + ${f(b.cpu.server!)} (+ ${f(b.cpu.simulator!)}) | ${cpuPerPipeline(b.cpu, wk.cpu, n)} ` +
              `| ${f(wk.wallS / b.wallS, 2)}× | ${b.failures} |`,
          );
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
        phaseWork.push(phaseLine(n, wk.timelines, loop.timelines));
        startWork.push(startLine(n, ourStarts, floorStartSteps));
        serverWork.push(`N = ${n}: ${perPipeline(wk.server, n)}; ${persistenceLoad(wk.server, wk.wallS)}`);
        costLines.push(costRow(n, 'ours', wk.server, percentile(wk.events!, 50)));
        actionWork.push(`N = ${n}, ours, actions: ${actionsLine(wk.server, n)}`);
        for (const b of bounds) {
          costLines.push(costRow(n, `the bound: ${b.name}`, b.server, null, wk.server));
          actionWork.push(`N = ${n}, the bound (${b.name}), actions: ${actionsLine(b.server, n)}`);
        }
        console.log(actionWork.slice(-1 - bounds.length).join('\n'));
        console.log(line, `load ${loadAverage()}`);
        console.log(serverWork.at(-1));
      }
    }
    await worker.stop('SIGTERM');
    await floorWorker?.stop('SIGTERM');
    await boundWorker?.stop('SIGTERM');
    if (floorLines.length)
      lines.push(
        '',
        `The Temporal floor: N workflows of two activities that each sleep as long as a job, ` +
          'on a worker of their own (bench/scale/floor-workflow.ts); the bound (`--bound`, run before each batch): ' +
          "one activity making the loop's calls, with none, one or both of the per-target locks (bound-workflow.ts):",
        '',
        "| N | wall: floor or bound / loop | CPU s: its worker + server (+ sim) | CPU ms per pipeline: its worker, server (ours ÷ it) | our worker's wall / it | failures |",
        '|---|---|---|---|---|---|',
        ...floorLines,
      );
    lines.push(
      '',
      'What each pipeline costs: Temporal Cloud actions as the server counts them (actions.ts) and their price at $50 per',
      'million, history events (median) and persistence operations; beside a bound, our actions against its:',
      '',
      '| N | side | actions / pipeline | $ / 1,000 pipelines | history events / pipeline | persistence operations / pipeline |',
      '|---|---|---|---|---|---|',
      ...costLines,
      '',
      ...actionWork.map((l) => `- ${l}`),
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
      '',
      "Where a pipeline's time goes, mean / p99 in ms, ours (the loop's): phases.ts",
      '',
      ...phaseWork.map((l) => `- ${l}`),
      '',
      "The start, step by step, mean / p99 in ms, ours (the floor's, whose first step is its first job): start-phase.ts",
      '',
      ...startWork.map((l) => `- ${l}`),
      '',
      'Activity attempts our pipelines retried, by activity and the failure before each (retries.ts):',
      '',
      ...retryWork.map((l) => `- ${l}`),
    );
    if (capacity > 0) step(`capacity: ${capacity} pipelines waiting${promotion > 0 ? ', then a promotion' : ''}`);
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
