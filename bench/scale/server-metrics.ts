/**
 * What the Temporal server did for a side of the scale benchmark, read from its Prometheus endpoint: the frontend
 * requests it served and the persistence operations it ran in the `default` namespace, by operation. Where its CPU
 * goes is named by these counts, per pipeline.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Counter values by `<metric>:<operation>` (`action:<action_type>` for the actions). */
export type Counts = Map<string, number>;

const WANTED: Record<string, (labels: string) => boolean> = {
  // Requests the frontend served (the workers' polls and completions, heartbeats, starts, signals, describes).
  service_requests: (l) => l.includes('service_name="frontend"'),
  // Reads and writes of executions, history, tasks and visibility, in our namespace only.
  persistence_requests: (l) => l.includes('namespace="default"'),
  // How long every persistence operation took, in any namespace, and how many there were: the dev server runs them
  // all on one SQLite connection, so their time against the wall time says how much they waited.
  persistence_latency_sum: () => true,
  persistence_latency_count: () => true,
  // The actions the server counts as Temporal Cloud bills them (actions.ts), in our namespace, by action_type.
  action: (l) => l.includes('namespace="default"'),
};

/** The counters now, as the server last published them. */
export async function scrape(url: string): Promise<Counts> {
  return counters(await (await fetch(url)).text());
}

/**
 * How often the server publishes its counters: about once a second, measured on the dev server (a scrape 100–300 ms
 * after a workflow ends may not show its last actions yet; one a second later does).
 */
export const PUBLISHED_EVERY_MS = 1_000;

/**
 * The counters once the server has published what was done before the call: scrapes, a little more than a publish
 * apart, until the actions stop changing (at most `tries` more scrapes). A scrape right after a side's last workflow
 * ended missed that second's actions, which the next side then counted as its own.
 */
export async function settledScrape(url: string, tries = 10, everyMs = PUBLISHED_EVERY_MS * 1.2): Promise<Counts> {
  let last = await scrape(url);
  for (let i = 0; i < tries; i++) {
    await sleep(everyMs);
    const next = await scrape(url);
    if (total(next, 'action') === total(last, 'action')) return next;
    last = next;
  }
  return last;
}

/** The wanted counters of a Prometheus text exposition, summed by metric and operation. */
export function counters(text: string): Counts {
  const counts: Counts = new Map();
  for (const line of text.split('\n')) {
    const m = /^(\w+)\{([^}]*)\} ([0-9.eE+-]+)$/.exec(line);
    if (!m || !WANTED[m[1]!]?.(m[2]!)) continue;
    const label = m[1] === 'action' ? 'action_type' : 'operation';
    const operation = new RegExp(`${label}="([^"]+)"`).exec(m[2]!)?.[1];
    if (!operation) continue;
    const key = `${m[1]}:${operation}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(m[3]));
  }
  return counts;
}

/** What changed between two scrapes. */
export function delta(before: Counts, after: Counts): Counts {
  const out: Counts = new Map();
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    if (d > 0) out.set(k, d);
  }
  return out;
}

/** A metric's values by operation. */
const ofMetric = (c: Counts, metric: string): [string, number][] =>
  [...c].filter(([k]) => k.startsWith(`${metric}:`)).map(([k, v]) => [k.slice(metric.length + 1), v]);
export const total = (c: Counts, metric: string) => ofMetric(c, metric).reduce((s, [, v]) => s + v, 0);
/** A metric's `top` operations, largest first. */
const largest = (c: Counts, metric: string, top: number) =>
  ofMetric(c, metric)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, top);

/**
 * "requests R per pipeline (every request kind, largest first); persistence P (the `top` largest)" for `pipelines`
 * pipelines. Every request kind is named, since sides are compared by them (a start, a signal, a terminate); a top-8
 * cut once dropped a side's one `StartWorkflowExecution` behind ties at 1.0.
 */
export function perPipeline(c: Counts, pipelines: number, top = 8): string {
  const each = (v: number) => (v / pipelines).toFixed(1);
  const most = (metric: string, n = top) =>
    largest(c, metric, n)
      .map(([op, v]) => `${op} ${each(v)}`)
      .join(', ');
  return (
    `server requests ${each(total(c, 'service_requests'))} per pipeline (${most('service_requests', Infinity)}); ` +
    `persistence operations ${each(total(c, 'persistence_requests'))} (${most('persistence_requests')})`
  );
}

/**
 * "persistence busy T s in W s (mean M in flight), L ms per operation (most time: Op s / count, …)": the time the
 * server's persistence operations took, summed, against the side's wall time. The dev server has one history shard and
 * one SQLite connection, so more than one operation in flight means they waited for each other.
 */
export function persistenceLoad(c: Counts, wallS: number): string {
  const seconds = total(c, 'persistence_latency_sum');
  const count = total(c, 'persistence_latency_count');
  const perOpMs = count > 0 ? (1000 * seconds) / count : 0;
  const most = largest(c, 'persistence_latency_sum', 5)
    .map(([op, s]) => `${op} ${s.toFixed(1)} s / ${c.get(`persistence_latency_count:${op}`) ?? 0}`)
    .join(', ');
  return (
    `persistence busy ${seconds.toFixed(1)} s in ${wallS.toFixed(1)} s (mean ${(seconds / wallS).toFixed(2)} in flight), ` +
    `${perOpMs.toFixed(2)} ms per operation (most time: ${most})`
  );
}
