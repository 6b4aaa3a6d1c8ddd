/**
 * The worker's lineage and link settings: where OpenLineage events go (DATAOPS_LINEAGE: off, file or http), the
 * namespace of their jobs, how tables are named per connection, and the service UI whose pages each job links to
 * (DATAOPS_SERVICE_UI_URL).
 * The endpoint's API key is a secret (DATAOPS_LINEAGE_API_KEY or _FILE) and is never shown.
 */
import type { JobLinks } from '../contract/job-links.js';
import { z } from 'zod';
import type { ConnectionSettings } from '../lineage/datasources.js';
import type { LineageTransport } from '../lineage/emitter.js';
import {
  type Env,
  type Problems,
  type ReadFile,
  doc,
  httpUrl,
  int,
  oneOf,
  readEnv,
  secretKey,
  text,
  textOr,
} from './env.js';

export interface LineageConfig {
  transport: LineageTransport;
  /**
   * The jobs' namespace: the scheduler that runs them, named by configuration, never by an address (which changes
   * when the worker reaches a server another way). @default $DATAOPS_LINEAGE_NAMESPACE, else
   * `temporal://<the Temporal namespace>`
   */
  namespace: string;
  /**
   * Where tables live when their connection does not name them (see connections), e.g. `postgres://warehouse:5432`.
   * @default $DATAOPS_LINEAGE_DATASET_NAMESPACE, else namespace
   */
  datasetNamespace?: string;
  /**
   * Per connection (by TestGen connection id, connection name, or `*` for any): its type and what the service does
   * not show, such as BigQuery's `project` (src/lineage/naming.ts). @default $DATAOPS_LINEAGE_CONNECTIONS (JSON), else {}
   */
  connections: ConnectionSettings;
  /** The language of the service that runs the remote jobs (a job's own failure). @default $DATAOPS_LINEAGE_SERVICE_LANGUAGE, else Python */
  serviceLanguage: string;
}

/** One connection's entry in DATAOPS_LINEAGE_CONNECTIONS: every field optional, nothing else. */
const ConnectionEntry = z.strictObject({
  type: z.string().min(1).optional(),
  host: z.string().min(1).optional(),
  port: z
    .union([z.string().min(1), z.number().int().positive()])
    .transform(String)
    .optional(),
  database: z.string().min(1).optional(),
  account: z.string().min(1).optional(),
  project: z.string().min(1).optional(),
  cluster: z.string().min(1).optional(),
  region: z.string().min(1).optional(),
  url: z.string().min(1).optional(),
});

/** DATAOPS_LINEAGE_CONNECTIONS: each problem named by its connection and field. */
function readConnections(json: string | undefined, problems: Problems): ConnectionSettings {
  if (json === undefined) return {};
  const example = '{"42": {"type": "Google BigQuery", "project": "my-project"}}';
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    problems.add('DATAOPS_LINEAGE_CONNECTIONS', `must be a JSON object by connection, e.g. ${example}`);
    return {};
  }
  const parsed = z.record(z.string().min(1), ConnectionEntry).safeParse(raw);
  if (parsed.success) return parsed.data;
  for (const i of parsed.error.issues)
    problems.add('DATAOPS_LINEAGE_CONNECTIONS', `${i.path.join('.') || '(value)'}: ${i.message} (e.g. ${example})`);
  return {};
}

/** TestGen's pages of a profiling run and a test run, under its UI address. */
const TESTGEN_PAGES = {
  profiling: '/profiling-runs:results?run_id={job_id}',
  test_run: '/test-runs:results?run_id={job_id}',
} as const;

/** The lineage variables. */
export const lineageEnv = {
  DATAOPS_LINEAGE: doc(
    oneOf(['off', 'file', 'http'], 'off'),
    "OpenLineage run events: `file` appends JSON lines, `http` posts them to an OpenLineage endpoint (Marquez's `/api/v1/lineage`).",
  ),
  DATAOPS_LINEAGE_URL: doc(httpUrl(), 'The endpoint events are posted to.', { default: 'required with `http`' }),
  DATAOPS_LINEAGE_API_KEY: doc(secretKey(), "The endpoint's key, sent as a bearer."),
  DATAOPS_LINEAGE_FILE: doc(text(), 'The file events are appended to, one JSON object a line.', {
    default: 'required with `file`',
  }),
  DATAOPS_LINEAGE_NAMESPACE: doc(text(), 'The namespace of the jobs.', {
    default: '`temporal://<Temporal namespace>`',
  }),
  DATAOPS_LINEAGE_DATASET_NAMESPACE: doc(text(), 'The namespace of tables whose connection does not name them.', {
    default: 'DATAOPS_LINEAGE_NAMESPACE',
  }),
  DATAOPS_LINEAGE_CONNECTIONS: doc(
    text(),
    "JSON, by connection id, name or `*`: what names a connection's tables where the service does not show it (`type`, `host`, `port`, `database`, `account`, `project`, `cluster`, `region`, `url`).",
  ),
  DATAOPS_LINEAGE_SERVICE_LANGUAGE: doc(
    textOr('Python'),
    "The language a remote job's own failure is reported in (`errorMessage.programmingLanguage`).",
  ),
  DATAOPS_LINEAGE_TIMEOUT_MS: doc(int({ fallback: 5_000, min: 1, max: 600_000 }), 'Timeout of each send, in ms.'),
  DATAOPS_LINEAGE_RETRIES: doc(
    int({ fallback: 5, min: 0, max: 20 }),
    'How many times a failed send is tried again (1 s doubling to 30 s) before the event is dropped with a warning.',
  ),
};

/** The job-link variables. */
export const jobLinksEnv = {
  DATAOPS_SERVICE_UI_URL: doc(
    httpUrl(),
    "The service's UI: every profiling run and test run links to its page there.",
    { default: 'no links' },
  ),
  DATAOPS_SERVICE_UI_PROFILING_PAGE: doc(text(), "A profiling run's page below the UI's address, with `{job_id}`.", {
    default: `TestGen's, \`${TESTGEN_PAGES.profiling}\``,
  }),
  DATAOPS_SERVICE_UI_TEST_RUN_PAGE: doc(text(), "A test run's page below the UI's address, with `{job_id}`.", {
    default: `TestGen's, \`${TESTGEN_PAGES.test_run}\``,
  }),
};

/** Where lineage events go, and their names; `temporalNamespace`: the worker's (the jobs' default namespace). */
export function readLineageConfig(
  env: Env,
  read: ReadFile,
  problems: Problems,
  temporalNamespace: string,
): LineageConfig {
  const v = readEnv(lineageEnv, env, problems, read);
  const apiKey = v.DATAOPS_LINEAGE_API_KEY;
  const namespace = v.DATAOPS_LINEAGE_NAMESPACE ?? `temporal://${temporalNamespace}`;
  const connections = readConnections(v.DATAOPS_LINEAGE_CONNECTIONS, problems);
  const kind = v.DATAOPS_LINEAGE;
  if (kind === 'http' && !v.DATAOPS_LINEAGE_URL)
    problems.add('DATAOPS_LINEAGE_URL', 'required with DATAOPS_LINEAGE=http (the OpenLineage endpoint events go to)');
  if (kind === 'file' && !v.DATAOPS_LINEAGE_FILE)
    problems.add('DATAOPS_LINEAGE_FILE', 'required with DATAOPS_LINEAGE=file (the JSON-lines file events go to)');
  for (const [key, set, needs] of [
    ['DATAOPS_LINEAGE_URL', v.DATAOPS_LINEAGE_URL, 'http'],
    ['DATAOPS_LINEAGE_API_KEY', apiKey, 'http'],
    ['DATAOPS_LINEAGE_FILE', v.DATAOPS_LINEAGE_FILE, 'file'],
  ] as const)
    if (set !== undefined && kind !== needs)
      problems.add(key, `set, but DATAOPS_LINEAGE is ${kind}: it takes effect only with DATAOPS_LINEAGE=${needs}`);
  const transport: LineageTransport =
    kind === 'http'
      ? {
          type: 'http',
          url: v.DATAOPS_LINEAGE_URL ?? '',
          ...(apiKey ? { apiKey } : {}),
          timeoutMs: v.DATAOPS_LINEAGE_TIMEOUT_MS,
          retries: v.DATAOPS_LINEAGE_RETRIES,
        }
      : kind === 'file'
        ? { type: 'file', path: v.DATAOPS_LINEAGE_FILE ?? '' }
        : { type: 'off' };
  return {
    transport,
    namespace,
    ...(v.DATAOPS_LINEAGE_DATASET_NAMESPACE ? { datasetNamespace: v.DATAOPS_LINEAGE_DATASET_NAMESPACE } : {}),
    connections,
    serviceLanguage: v.DATAOPS_LINEAGE_SERVICE_LANGUAGE,
  };
}

/**
 * The pages of a job in the service's UI: DATAOPS_SERVICE_UI_URL with TestGen's page of each role, or with
 * DATAOPS_SERVICE_UI_PROFILING_PAGE / _TEST_RUN_PAGE (a path with `{job_id}`). None without the UI address.
 */
export function readJobLinks(env: Env, problems: Problems): JobLinks {
  const v = readEnv(jobLinksEnv, env, problems);
  const pages = {
    profiling: v.DATAOPS_SERVICE_UI_PROFILING_PAGE ?? TESTGEN_PAGES.profiling,
    test_run: v.DATAOPS_SERVICE_UI_TEST_RUN_PAGE ?? TESTGEN_PAGES.test_run,
  };
  for (const [role, key] of [
    ['profiling', 'DATAOPS_SERVICE_UI_PROFILING_PAGE'],
    ['test_run', 'DATAOPS_SERVICE_UI_TEST_RUN_PAGE'],
  ] as const)
    if (!pages[role].includes('{job_id}')) problems.add(key, "must contain {job_id}, where the job's id goes");
  const ui = v.DATAOPS_SERVICE_UI_URL?.replace(/\/+$/, '');
  if (!ui) return {};
  return { profiling: `${ui}${pages.profiling}`, test_run: `${ui}${pages.test_run}` };
}

/** The lineage settings as logged: where events go, never the endpoint's key. */
export function describeLineage(l: LineageConfig): string {
  const t = l.transport;
  if (t.type === 'off') return 'off';
  const where = t.type === 'http' ? `http ${t.url}${t.apiKey ? ' (API key set)' : ''}` : `file ${t.path}`;
  return `${where}, namespace ${l.namespace}`;
}
