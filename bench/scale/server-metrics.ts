/**
 * What the Temporal server did for a side of the scale benchmark, read from its Prometheus endpoint: the frontend
 * requests it served and the persistence operations it ran in the `default` namespace, by operation. Where its CPU
 * goes is named by these counts, per pipeline.
 */

/** Counter values by `<metric>:<operation>`. */
export type Counts = Map<string, number>;

const WANTED: Record<string, (labels: string) => boolean> = {
  // Requests the frontend served (the workers' polls and completions, heartbeats, starts, signals, describes).
  service_requests: (l) => l.includes('service_name="frontend"'),
  // Reads and writes of executions, history, tasks and visibility, in our namespace only.
  persistence_requests: (l) => l.includes('namespace="default"'),
};

/** The counters now. */
export async function scrape(url: string): Promise<Counts> {
  const text = await (await fetch(url)).text();
  const counts: Counts = new Map();
  for (const line of text.split('\n')) {
    const m = /^(\w+)\{([^}]*)\} ([0-9.e+]+)$/.exec(line);
    if (!m || !WANTED[m[1]!]?.(m[2]!)) continue;
    const operation = /operation="([^"]+)"/.exec(m[2]!)?.[1];
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

const total = (c: Counts, metric: string) =>
  [...c].filter(([k]) => k.startsWith(`${metric}:`)).reduce((s, [, v]) => s + v, 0);

/** "requests R, persistence P per pipeline; most: Op n, …" for `pipelines` pipelines. */
export function perPipeline(c: Counts, pipelines: number, top = 8): string {
  const each = (v: number) => (v / pipelines).toFixed(1);
  const most = (metric: string) =>
    [...c]
      .filter(([k]) => k.startsWith(`${metric}:`))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `${k.slice(metric.length + 1)} ${each(v)}`)
      .join(', ');
  return (
    `server requests ${each(total(c, 'service_requests'))} per pipeline (${most('service_requests')}); ` +
    `persistence operations ${each(total(c, 'persistence_requests'))} (${most('persistence_requests')})`
  );
}
