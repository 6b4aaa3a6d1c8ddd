/**
 * `emitLineage`, run by the workflows as a local activity at each transition of their run and of their remote jobs:
 * it hands the transitions to the worker's lineage emitter (src/lineage/emitter.ts) and returns at once. What a
 * completed job found in each table (a profiling run's column profiles, a test run's per-test outcomes) is read from
 * the service, where it lists them (TestGen 5.134), by the emitter before it sends the event, and each table is named
 * as OpenLineage names it in the database its table group's connection reaches (src/lineage/datasources.ts). A run's
 * own end lists the tables of its completed jobs (read again only when this worker did not keep them). A read that
 * fails or is refused leaves the tables out, and nothing waits on it.
 */
import { READS_TABLES, type LineageTransition } from '../contract/lineage.js';
import { NotFound, PermissionDenied } from '../api/errors.js';
import type { Datasources, DatasourceReader, Resolved } from '../lineage/datasources.js';
import type { LineageEmitter } from '../lineage/emitter.js';
import { runEvent, type LineageSettings, type TableFacts } from '../lineage/events.js';
import type { ActivityContext } from './context.js';

export interface LineageDeps {
  emitter: LineageEmitter;
  settings: LineageSettings;
  /** Where each table group's tables live (their dataset names). @default tables named `schema.table` */
  datasources?: Datasources;
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

/** The tables each job found, kept for the run's own end (the last KEPT_JOBS jobs this worker read). */
const KEPT_JOBS = 500;

/** A read the service does not serve, or shows to nobody: an answer (null), not a failure. */
const absent = <T>(read: Promise<T>): Promise<T | null> =>
  read.catch((err: unknown) => {
    if (err instanceof NotFound || err instanceof PermissionDenied) return null;
    throw err;
  });

export function lineageActivities(ctx: ActivityContext, lineage: LineageDeps | undefined) {
  const kept = new Map<string, TableFacts[]>();
  const keep = (jobId: string, tables: TableFacts[]) => {
    kept.set(jobId, tables);
    if (kept.size > KEPT_JOBS) kept.delete(kept.keys().next().value!);
  };

  /** Each table's dataset name by its table group's connection; the tables as they are where it cannot be told. */
  async function named(profile: string, tableGroupId: string | undefined, tables: TableFacts[]): Promise<TableFacts[]> {
    if (!lineage?.datasources || !tableGroupId || !tables.length) return tables;
    const client = ctx.profile(profile).client;
    const reader: DatasourceReader = {
      tableGroup: (id) => absent(client.tableGroups.get(id)),
      connection: (id) => absent(client.connections.get(id)),
    };
    let resolved: Resolved;
    try {
      resolved = await lineage.datasources.resolve(profile, tableGroupId, reader);
    } catch (err) {
      resolved = { problem: `its connection could not be read: ${(err as Error).message}` };
    }
    if ('problem' in resolved) {
      lineage.log('lineage: tables named schema.table in the dataset namespace', {
        tableGroupId,
        reason: resolved.problem,
      });
      return tables;
    }
    return tables.map((t) => ({ ...t, dataset: resolved.naming(t.schema ?? resolved.schema, t.table) }));
  }

  /** What a completed job found in each table, kept for its run's end. */
  async function jobTables(profile: string, job: { role: string; jobId: string }): Promise<TableFacts[] | undefined> {
    if (kept.has(job.jobId)) return kept.get(job.jobId);
    const tables = await tablesOf(ctx, lineage!, profile, job);
    if (tables) keep(job.jobId, tables); // none: not listed, or the read failed; the run's end asks again
    return tables;
  }

  /** The tables of a run's end: each of its completed jobs', one dataset per table with all they found there. */
  async function runTables(profile: string, jobs: { role: string; jobId: string }[]): Promise<TableFacts[]> {
    const byName = new Map<string, TableFacts>();
    for (const job of jobs)
      for (const t of (await jobTables(profile, job)) ?? []) {
        const key = `${t.schema ?? ''}.${t.table}`;
        const seen = byName.get(key);
        if (!seen) byName.set(key, { ...t });
        else {
          if (t.columns) seen.columns = [...(seen.columns ?? []), ...t.columns];
          if (t.assertions) seen.assertions = [...(seen.assertions ?? []), ...t.assertions];
        }
      }
    return [...byName.values()];
  }

  /** The tables a transition's event lists, named, or none. */
  async function tablesFor(profile: string, t: LineageTransition): Promise<TableFacts[] | undefined> {
    const job = t.job;
    const tableGroupId =
      t.facts?.testRun?.tableGroupId ?? t.facts?.profiling?.tableGroupId ?? t.workflow.target.tableGroupId;
    if (job && t.eventType === 'COMPLETE' && READS_TABLES.has(job.role)) {
      const tables = await jobTables(profile, job);
      return tables && named(profile, tableGroupId ?? undefined, tables);
    }
    if (!job && t.inputJobs?.length)
      return named(profile, tableGroupId ?? undefined, await runTables(profile, t.inputJobs));
    return undefined;
  }

  return {
    /** Queues the transitions' OpenLineage events; never fails a workflow for lineage's sake. */
    emitLineage: async (input: { profile: string; transitions: LineageTransition[] }): Promise<void> => {
      if (!lineage?.emitter.enabled) return;
      for (const t of input.transitions)
        lineage.emitter.emit(async () => [runEvent(t, lineage.settings, await tablesFor(input.profile, t))]);
    },
  };
}
