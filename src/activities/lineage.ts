/**
 * `emitLineage`, run by the workflows as a local activity at each transition of their run and of their remote jobs:
 * it hands the transitions to the worker's lineage emitter (src/lineage/emitter.ts) and returns at once. What a
 * completed job found in each table (a profiling run's column profiles, a test run's per-test outcomes) is read from
 * the service, where it lists them (TestGen 5.134), by the emitter before it sends the event: a read that fails or is
 * refused leaves the tables out (the table group stands for them), and nothing waits on it.
 */
import type { LineageTransition } from '../contract/lineage.js';
import type { LineageEmitter } from '../lineage/emitter.js';
import { runEvent, type LineageSettings, type TableFacts } from '../lineage/events.js';
import type { ActivityContext } from './context.js';

export interface LineageDeps {
  emitter: LineageEmitter;
  settings: LineageSettings;
  /** The worker's logger: events are built after the activity has returned, outside its context. */
  log: (message: string, meta: Record<string, unknown>) => void;
}

/** How many rows (results, columns) a job's event carries at most: pages of 100. */
const MAX_ROWS = 2_000;
const PAGE = 100;

/** TestGen's result statuses as an assertion's severity. */
const SEVERITY: Record<string, string> = { failed: 'error', error: 'error', warning: 'warn' };

type Row = { schema_name?: string | null; table_name?: string | null };

/** Every page of a listing, up to MAX_ROWS rows. */
async function allPages<R>(read: (page: number) => Promise<{ items: R[]; total: number }>): Promise<R[]> {
  const rows: R[] = [];
  for (let page = 1; rows.length < MAX_ROWS; page++) {
    const got = await read(page);
    rows.push(...got.items);
    if (got.items.length === 0 || page * PAGE >= got.total) break;
  }
  return rows;
}

/** Rows grouped by their table (rows without one under the table group's name). */
function byTable<R extends Row>(rows: R[], add: (table: TableFacts, row: R) => void): TableFacts[] {
  const tables = new Map<string, TableFacts>();
  for (const row of rows) {
    const key = `${row.schema_name ?? ''}.${row.table_name ?? ''}`;
    let table = tables.get(key);
    if (!table) {
      table = { ...(row.schema_name ? { schema: row.schema_name } : {}), table: row.table_name ?? '(table group)' };
      tables.set(key, table);
    }
    add(table, row);
  }
  return [...tables.values()];
}

/** What the job found in each table, or undefined where the deployment does not list it or the read fails. */
async function tablesOf(
  ctx: ActivityContext,
  lineage: LineageDeps,
  profile: string,
  job: { role: string; jobId: string },
): Promise<TableFacts[] | undefined> {
  try {
    const client = ctx.profile(profile).client;
    if (job.role === 'test_run') {
      const results = await allPages((page) => client.testRuns.results(job.jobId, page, PAGE));
      return byTable(results, (table, r) => {
        const status = r.result_status ?? 'unknown';
        (table.assertions ??= []).push({
          assertion: r.test_type,
          success: status === 'passed' || status === 'log',
          ...(r.column_names ? { column: r.column_names } : {}),
          ...(SEVERITY[status] ? { severity: SEVERITY[status] } : {}),
          name: [r.column_names, r.test_type_name ?? r.test_type].filter(Boolean).join(': '),
        });
      });
    }
    const columns = await allPages((page) => client.profilingRuns.columns(job.jobId, page, PAGE));
    return byTable(columns, (table, c) =>
      (table.columns ??= []).push({
        name: c.column_name,
        ...(c.db_data_type ? { type: c.db_data_type } : {}),
        ...(typeof c.record_ct === 'number' ? { count: c.record_ct } : {}),
        ...(typeof c.null_value_ct === 'number' ? { nullCount: c.null_value_ct } : {}),
        ...(typeof c.distinct_value_ct === 'number' ? { distinctCount: c.distinct_value_ct } : {}),
      }),
    );
  } catch (err) {
    lineage.log('lineage: the tables of a job could not be read; its table group stands for them', {
      jobId: job.jobId,
      error: (err as Error).message,
    });
    return undefined;
  }
}

export function lineageActivities(ctx: ActivityContext, lineage: LineageDeps | undefined) {
  return {
    /** Queues the transitions' OpenLineage events; never fails a workflow for lineage's sake. */
    emitLineage: async (input: { profile: string; transitions: LineageTransition[] }): Promise<void> => {
      if (!lineage?.emitter.enabled) return;
      for (const t of input.transitions) {
        const job = t.job;
        const readsTables = job && t.eventType === 'COMPLETE' && (job.role === 'test_run' || job.role === 'profiling');
        lineage.emitter.emit(async () => [
          runEvent(t, lineage.settings, readsTables ? await tablesOf(ctx, lineage, input.profile, job) : undefined),
        ]);
      }
    },
  };
}
