/** What the scale benchmark reads about processes (CPU seconds, resident memory) and its summary statistics. */
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // Linux USER_HZ

/** User plus system CPU seconds a process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Resident memory now and at its peak, in MiB. */
export function memoryMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Runs `fn` over `items` with at most `limit` in flight; settles every one. */
export async function pooled<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>) {
  const out: PromiseSettledResult<R>[] = [];
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) {
      try {
        out[i] = { status: 'fulfilled', value: await fn(items[i]!, i) };
      } catch (reason) {
        out[i] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

/** A figure with `d` decimals, or a dash where there is none. */
export const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '–');

const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN);

/** Durations in ms as the benchmark prints them: `mean / p99`, whole milliseconds. */
export const meanP99 = (xs: number[]) => `${f(mean(xs), 0)} / ${f(percentile(xs, 99), 0)}`;

/** Load average over the last minute. */
export const loadAverage = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

/**
 * "W, S (ours A× / B×)": a side's worker and server CPU per pipeline in ms (`cpu` in seconds, by process), and ours
 * against it, so that the CPU targets read at a glance.
 */
export function cpuPerPipeline(it: Record<string, number>, ours: Record<string, number>, n: number): string {
  const ms = (s = NaN) => f((s * 1000) / n, 1);
  const ratio = (a = NaN, b = NaN) => (Number.isFinite(a / b) ? `${f(a / b, 2)}×` : '–');
  return `${ms(it.worker)}, ${ms(it.server)} (ours ${ratio(ours.worker, it.worker)} / ${ratio(ours.server, it.server)})`;
}
