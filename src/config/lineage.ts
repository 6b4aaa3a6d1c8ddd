/**
 * The worker's lineage and link settings: where OpenLineage events go (DATAOPS_LINEAGE: off, file or http), the
 * namespace of their jobs and datasets, and the service UI whose pages each job links to (DATAOPS_SERVICE_UI_URL).
 * The endpoint's API key is a secret (DATAOPS_LINEAGE_API_KEY or _FILE) and is never shown.
 */
import type { JobLinks } from '../contract/job-links.js';
import type { LineageTransport } from '../lineage/emitter.js';
import { type Env, type Problems, type ReadFile, httpUrl, int, oneOf, readEnv, secret, text } from './env.js';

export interface LineageConfig {
  transport: LineageTransport;
  /** @default $DATAOPS_LINEAGE_NAMESPACE, else `dataops://<host of the service's /api/v1>` */
  namespace: string;
  /** Where the tables live, e.g. `postgres://warehouse:5432`. @default $DATAOPS_LINEAGE_DATASET_NAMESPACE, else namespace */
  datasetNamespace?: string;
}

/** TestGen's pages of a profiling run and a test run, under its UI address. */
const TESTGEN_PAGES = {
  profiling: '/profiling-runs:results?run_id={job_id}',
  test_run: '/test-runs:results?run_id={job_id}',
} as const;

/** Where lineage events go, and their namespace; `apiBase`: the service's `/api/v1` address (the default namespace). */
export function readLineageConfig(env: Env, read: ReadFile, problems: Problems, apiBase: string): LineageConfig {
  const v = readEnv(
    {
      DATAOPS_LINEAGE: oneOf(['off', 'file', 'http'], 'off'),
      DATAOPS_LINEAGE_URL: httpUrl(),
      DATAOPS_LINEAGE_FILE: text(),
      DATAOPS_LINEAGE_NAMESPACE: text(),
      DATAOPS_LINEAGE_DATASET_NAMESPACE: text(),
      DATAOPS_LINEAGE_TIMEOUT_MS: int({ fallback: 5_000, min: 1, max: 600_000 }),
      DATAOPS_LINEAGE_RETRIES: int({ fallback: 5, min: 0, max: 20 }),
    },
    env,
    problems,
  );
  const apiKey = secret('DATAOPS_LINEAGE_API_KEY', env, read, problems);
  let namespace = v.DATAOPS_LINEAGE_NAMESPACE;
  if (!namespace) {
    try {
      namespace = `dataops://${new URL(apiBase).host}`;
    } catch {
      namespace = 'dataops'; // the base address's own problem is reported where it is read
    }
  }
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
  };
}

/**
 * The pages of a job in the service's UI: DATAOPS_SERVICE_UI_URL with TestGen's page of each role, or with
 * DATAOPS_SERVICE_UI_PROFILING_PAGE / _TEST_RUN_PAGE (a path with `{job_id}`). None without the UI address.
 */
export function readJobLinks(env: Env, problems: Problems): JobLinks {
  const v = readEnv(
    {
      DATAOPS_SERVICE_UI_URL: httpUrl(),
      DATAOPS_SERVICE_UI_PROFILING_PAGE: text(),
      DATAOPS_SERVICE_UI_TEST_RUN_PAGE: text(),
    },
    env,
    problems,
  );
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
