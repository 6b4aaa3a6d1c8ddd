/** One side of a scale batch measured: its wall time, the CPU of every process, the simulator's requests, the server's work. */
import type { World } from '../../test/helpers/matrix-world.js';
import { cpuSeconds } from './measure.js';
import type { Timeline } from './phases.js';
import { delta, settledScrape, type Counts } from './server-metrics.js';

export interface Side {
  wallS: number;
  cpu: Record<string, number>;
  requests: number;
  lags: number[];
  failures: number;
  timelines: Timeline[];
  events?: number[];
  server: Counts;
}

const pids = (w: World, worker: number) => ({
  worker,
  server: w.temporal.proc!.child.pid!,
  simulator: w.sim.proc!.child.pid!,
  bench: process.pid,
});

/** Runs `body` as the side of a batch whose Temporal worker is `worker` (a pid), and measures it. */
export async function measured<B extends Omit<Side, 'wallS' | 'cpu' | 'requests' | 'server'>>(
  w: World,
  worker: number,
  body: () => Promise<B>,
) {
  const p = pids(w, worker);
  // Both ends settled: what the server did before the side (the one before it) is not counted as the side's, and
  // what the side's last workflows did is (its wall time stops before the wait).
  const server0 = await settledScrape(w.temporalMetricsUrl);
  const cpu0 = Object.fromEntries(Object.entries(p).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const req0 = (await w.controls.call<{ requests: number }>('GET', '/_sim/counters')).requests;
  const t0 = performance.now();
  const out = await body();
  const wallS = (performance.now() - t0) / 1000;
  const cpu = Object.fromEntries(Object.entries(p).map(([k, pid]) => [k, cpuSeconds(pid) - cpu0[k]!]));
  const requests = (await w.controls.call<{ requests: number }>('GET', '/_sim/counters')).requests - req0;
  const server = delta(server0, await settledScrape(w.temporalMetricsUrl));
  return { ...out, wallS, cpu, requests, server };
}
