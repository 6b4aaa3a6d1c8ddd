/**
 * OpenLineage's dataset naming (its spec's Naming.md and the Python client's `openlineage.client.naming`): a table's
 * namespace and name from the database it lives in, so that our events name a table as dbt's, Airflow's or Spark's
 * events name it, and a catalog joins them. Pure rules: where the facts come from is src/lineage/datasources.ts. The
 * rules, as a reader sees them: the one table in docs/design/lineage.md ("Names").
 */

/** What says where a table group's tables live: its connection's type and settings, and any setting of ours. */
export interface Datasource {
  /** TestGen's `connection_type` label (`PostgreSQL`, `Amazon Redshift`, …) or its flavor code (`postgresql`, …). */
  type: string;
  host?: string;
  port?: string;
  /** The database; Oracle's service name; Databricks' catalog. */
  database?: string;
  /** Snowflake: the account identifier (`{organization}-{account}`); else read from the host. */
  account?: string;
  /** BigQuery: the project id (TestGen does not show it: it is in the service account key). */
  project?: string;
  /** Redshift: the cluster identifier and region; else read from an AWS host name. */
  cluster?: string;
  region?: string;
  /** A connection given as a URL (TestGen's URL mode): host, port and database are read from it where not given. */
  url?: string;
}

export interface DatasetName {
  namespace: string;
  name: string;
}

/** A table's dataset name, from its schema and table. */
export type Naming = (schema: string | undefined, table: string) => DatasetName;

type Rule = {
  /** TestGen's labels and codes of the type, lower case. */
  types: string[];
  /** The namespace, or the names of the fields it lacks. */
  namespace: (d: Datasource) => string | string[];
  /** What the name starts with before the schema (a database, project or catalog), by the field that holds it. */
  prefix?: 'database' | 'project';
  /** The default port. */
  port?: string;
};

/** `scheme://host:port`, or the host it lacks. */
const hostPort = (scheme: string) => (d: Datasource) => (d.host ? `${scheme}://${d.host}:${d.port}` : ['host']);

/** A Redshift cluster's identifier and region from its AWS host (`{cluster}.{id}.{region}.redshift[-serverless].amazonaws.com`). */
function redshiftNamespace(d: Datasource): string | string[] {
  const labels = (d.host ?? '').split('.');
  const aws = /\.redshift(-serverless)?\.amazonaws\.com$/i.test(d.host ?? '') && labels.length >= 6;
  const cluster = d.cluster ?? (aws ? labels[0] : undefined);
  const region = d.region ?? (aws ? labels[2] : undefined);
  if (!cluster || !region) return ['cluster', 'region'];
  return `redshift://${cluster}.${region}:${d.port}`;
}

function snowflakeNamespace(d: Datasource): string | string[] {
  const account = d.account ?? /^(.+?)(\.privatelink)?\.snowflakecomputing\.com$/i.exec(d.host ?? '')?.[1];
  return account ? `snowflake://${account.toLowerCase()}` : ['account (or a host *.snowflakecomputing.com)'];
}

const RULES: Rule[] = [
  { types: ['postgresql', 'postgres'], namespace: hostPort('postgres'), prefix: 'database', port: '5432' },
  {
    types: ['amazon redshift', 'redshift', 'amazon redshift spectrum', 'redshift_spectrum'],
    namespace: redshiftNamespace,
    prefix: 'database',
    port: '5439',
  },
  { types: ['snowflake'], namespace: snowflakeNamespace, prefix: 'database' },
  { types: ['google bigquery', 'bigquery'], namespace: () => 'bigquery', prefix: 'project' },
  {
    types: ['microsoft sql server', 'mssql', 'azure sql database', 'azure_mssql'],
    namespace: hostPort('mssql'),
    prefix: 'database',
    port: '1433',
  },
  { types: ['azure synapse analytics', 'synapse_mssql'], namespace: hostPort('sqlserver'), port: '1433' },
  { types: ['databricks'], namespace: (d) => (d.host ? `databricks://${d.host}` : ['host']), prefix: 'database' },
  { types: ['oracle'], namespace: hostPort('oracle'), prefix: 'database', port: '1521' },
];

/** A DNS name, an IPv4 address, or an IPv6 address in brackets. */
const HOST = /^([a-z0-9]([a-z0-9-]*[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$|^\[[0-9a-f:.]+\]$/i;

/** The types with a naming rule, as TestGen labels them (for messages and docs). */
export const NAMED_TYPES = RULES.map((r) => r.types[0]!);

/** Host, port and database of a URL-mode connection (`postgresql://user@host:5432/db`, `jdbc:…` too). */
function fromUrl(url: string): Partial<Datasource> {
  try {
    const u = new URL(url.replace(/^jdbc:/i, ''));
    const database = decodeURIComponent(u.pathname.replace(/^\/+/, '').split(/[/;?]/)[0] ?? '');
    return {
      ...(u.hostname ? { host: u.hostname } : {}),
      ...(u.port ? { port: u.port } : {}),
      ...(database ? { database } : {}),
    };
  } catch {
    return {};
  }
}

/** Which fields are missing, by name, for the problem's message. */
const missing = (fields: string[], type: string) =>
  `a ${type} connection needs ${fields.join(' and ')} to name its tables as OpenLineage does`;

/**
 * How a datasource's tables are named, or the problem (what is missing) when they cannot be. A table without a
 * schema takes none (`{database}.{table}`).
 */
export function namingOf(source: Datasource): Naming | { problem: string } {
  const rule = RULES.find((r) => r.types.includes(source.type.trim().toLowerCase()));
  if (!rule)
    return {
      problem: `no OpenLineage naming rule for a ${source.type} connection (there is one for: ${NAMED_TYPES.join(', ')})`,
    };
  const d: Datasource = { ...(source.url ? fromUrl(source.url) : {}), ...definedOnly(source) };
  // A host shown that is no host name (TestGen standalone shows its embedded database as `<embedded>`) names nothing.
  if (d.host !== undefined && !HOST.test(d.host))
    return { problem: `a ${source.type} connection whose host is ${JSON.stringify(d.host)} needs a host name` };
  const port = d.port ?? rule.port;
  const namespace = rule.namespace({ ...d, ...(port ? { port } : {}) });
  const lacks = [
    ...(Array.isArray(namespace) ? namespace : []),
    ...(rule.prefix && !d[rule.prefix] ? [rule.prefix] : []),
  ];
  if (lacks.length || Array.isArray(namespace)) return { problem: missing(lacks, source.type) };
  const prefix = rule.prefix ? [d[rule.prefix]] : [];
  return (schema, table) => ({ namespace, name: [...prefix, schema, table].filter(Boolean).join('.') });
}

function definedOnly(d: Datasource): Datasource {
  return Object.fromEntries(Object.entries(d).filter(([, v]) => v !== undefined && v !== '')) as unknown as Datasource;
}
