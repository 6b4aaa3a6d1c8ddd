/**
 * What a side of the scale benchmark costs in Temporal Cloud actions, as the server itself counts them: its `action`
 * metric (the same accounting Temporal Cloud bills), by `action_type`, in our namespace. A workflow start counts once
 * when it started (a start refused by a conflict policy does not), each command that is an action once (a scheduled
 * activity, a timer, a search-attribute or memo upsert, an external signal; a child start twice), each retried
 * activity attempt, each heartbeat that reached the server, each signal and each query. The server also counts each
 * marker (a patch, a local activity) one by one and then once per workflow task that carries any
 * (`command_BatchMarkers`); Cloud bills the batch, so the single markers are left out here.
 */
import { total, type Counts } from './server-metrics.js';

/** Temporal Cloud's list price of an action: $50 per million. */
export const DOLLARS_PER_ACTION = 50 / 1_000_000;

/** The action types counted, with how many each side made. */
export function actionsByType(c: Counts): [string, number][] {
  return [...c]
    .filter(([k]) => k.startsWith('action:') && !k.startsWith('action:command_RecordMarker'))
    .map(([k, v]): [string, number] => [k.slice('action:'.length), v])
    .sort((a, b) => b[1] - a[1]);
}

/** Every action a side made. */
export const totalActions = (c: Counts): number => actionsByType(c).reduce((s, [, v]) => s + v, 0);

/** "A actions per pipeline, $D per 1,000 pipelines (most: type n, …)" for `pipelines` pipelines. */
export function actionsLine(c: Counts, pipelines: number, top = 12): string {
  const each = totalActions(c) / pipelines;
  const most = actionsByType(c)
    .slice(0, top)
    .map(([type, v]) => `${type.replace(/^(grpc|command)_/, '')} ${(v / pipelines).toFixed(1)}`)
    .join(', ');
  return `${each.toFixed(1)} actions per pipeline, $${(each * 1_000 * DOLLARS_PER_ACTION).toFixed(3)} per 1,000 pipelines (${most})`;
}

/**
 * A row of the cost table: actions per pipeline and their price per 1,000 pipelines, history events per pipeline (when
 * the side's histories were read), and persistence operations per pipeline; for a bound, our actions against its.
 */
export function costRow(n: number, side: string, c: Counts, events: number | null, ours?: Counts): string {
  const each = totalActions(c) / n;
  const ratio = ours ? ` (ours ${(totalActions(ours) / Math.max(totalActions(c), 1)).toFixed(2)}×)` : '';
  return (
    `| ${n} | ${side} | ${each.toFixed(1)}${ratio} | $${(each * 1_000 * DOLLARS_PER_ACTION).toFixed(3)} ` +
    `| ${events === null ? '–' : events.toFixed(0)} | ${(total(c, 'persistence_requests') / n).toFixed(1)} |`
  );
}
