/**
 * Where a table group's tables live, for their OpenLineage names (naming.ts): read from the service (TestGen 5.134:
 * `GET table-groups/{id}` names its connection and schema, `GET connections/{id}` the connection's type, host, port
 * and database, never its credentials), with the worker's per-connection setting over it (DATAOPS_LINEAGE_CONNECTIONS:
 * what TestGen does not show, such as BigQuery's project, or everything on a deployment that serves neither).
 * Each table group is read once per worker and kept for ten minutes; a read that fails is not kept.
 */
import { namingOf, type Datasource, type Naming } from './naming.js';

/** The per-connection setting: by connection id, connection name, or `*` (any connection). */
export type ConnectionSettings = Record<string, Partial<Datasource>>;

/**
 * What is read of the service: a table group's connection and schema, and a connection; null where the service
 * does not serve it or shows it to nobody (404, 403: an answer, kept). Any other failure throws (not kept).
 */
export interface DatasourceReader {
  tableGroup: (
    tableGroupId: string,
  ) => Promise<{ connection_id?: number | string | null; schema_name?: string | null } | null>;
  connection: (connectionId: string) => Promise<{
    connection_name?: string | null;
    connection_type?: string | null;
    settings?: Record<string, unknown> | null;
  } | null>;
}

/** How a table group's tables are named: the naming, its default schema, or why they cannot be named. */
export type Resolved = { naming: Naming; schema?: string } | { problem: string };

const KEEP_MS = 10 * 60_000;

/** The connection's settings as a Datasource: TestGen names the database `catalog` on Databricks, `service_name` on Oracle. */
function fromConnection(type: string, settings: Record<string, unknown>): Datasource {
  const s = (k: string) => {
    const v = settings[k];
    return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
  };
  const d: Datasource = { type };
  const fields: [keyof Datasource, string | undefined][] = [
    ['host', s('host')],
    ['port', s('port')],
    ['database', s('database') ?? s('catalog') ?? s('service_name')],
    ['url', s('url')],
  ];
  for (const [k, v] of fields) if (v) d[k] = v;
  return d;
}

export class Datasources {
  private readonly kept = new Map<string, { at: number; resolved: Promise<Resolved> }>();

  constructor(
    private readonly settings: ConnectionSettings = {},
    private readonly now: () => number = Date.now,
  ) {}

  /** How the tables of `tableGroupId` are named, read through `reader` (the profile's client). */
  resolve(key: string, tableGroupId: string, reader: DatasourceReader): Promise<Resolved> {
    const at = this.now();
    const id = `${key}\0${tableGroupId}`;
    const kept = this.kept.get(id);
    if (kept && at - kept.at < KEEP_MS) return kept.resolved;
    const resolved = this.read(tableGroupId, reader);
    this.kept.set(id, { at, resolved });
    resolved.catch(() => this.kept.delete(id));
    return resolved;
  }

  private async read(tableGroupId: string, reader: DatasourceReader): Promise<Resolved> {
    const group = await reader.tableGroup(tableGroupId);
    const connectionId =
      group?.connection_id === null || group?.connection_id === undefined ? undefined : String(group.connection_id);
    const connection = connectionId ? await reader.connection(connectionId) : null;
    const ours =
      (connectionId ? this.settings[connectionId] : undefined) ??
      (connection?.connection_name ? this.settings[connection.connection_name] : undefined) ??
      this.settings['*'];
    const type = ours?.type ?? connection?.connection_type ?? undefined;
    if (!type)
      return {
        problem: connection
          ? 'its connection has no type'
          : `the service shows no connection for table group ${tableGroupId} and DATAOPS_LINEAGE_CONNECTIONS names none`,
      };
    const source = { ...(connection ? fromConnection(type, connection.settings ?? {}) : { type }), ...ours, type };
    const naming = namingOf(source);
    if ('problem' in naming)
      return {
        problem: `${naming.problem} (connection ${connection?.connection_name ?? connectionId ?? '*'}: set it in DATAOPS_LINEAGE_CONNECTIONS)`,
      };
    return { naming, ...(group?.schema_name ? { schema: group.schema_name } : {}) };
  }
}
