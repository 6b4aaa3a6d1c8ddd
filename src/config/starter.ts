/**
 * The starter CLI's configuration: the Temporal connection (flags win over the environment), the Web UI address for
 * links, and the service's address (which names its targets' submitters). The CLI never talks to the service, so it
 * reads no service credentials.
 */
import {
  type Env,
  Problems,
  type ReadFile,
  doc,
  httpUrl,
  orDefault,
  processEnv,
  readEnv,
  readFromDisk,
} from './env.js';
import { workerEnv } from './worker.js';
import { type TemporalConfig, readTemporalConfig } from './temporal.js';
import { readTracingConfig } from './telemetry.js';
import type { TracingConfig } from '../telemetry/tracing-types.js';
import { deploymentsOf, type Deployments } from '../exactly-once/messages.js';

export interface StarterConfig {
  temporal: TemporalConfig;
  /** @default $DATAOPS_TEMPORAL_UI_URL, else http://localhost:8233 for a local server, else none */
  uiUrl?: string;
  /** OTLP tracing (src/config/telemetry.ts). @default off */
  tracing?: TracingConfig;
  /**
   * Whether a start sets the run's first search attributes itself (`searchAttributesAtStart`): unless
   * DATAOPS_SEARCH_ATTRIBUTES, the worker's setting read here too, is `off`.
   */
  searchAttributes: boolean;
  /**
   * The service deployment the worker writes to, from DATAOPS_BASE_URL and DATAOPS_API_BASE_URL (the worker's, read
   * here too): a run's target's submitter is named by it (`status`'s `retrying` line).
   */
  deployments: Deployments;
}

/** Global flags of the CLI that override the environment. */
export interface StarterFlags {
  address?: string;
  namespace?: string;
  taskQueue?: string;
  /** A profile of temporal.toml (TEMPORAL_PROFILE). */
  profile?: string;
}

/** The CLI's own variables, beside the Temporal connection and tracing: the worker's, read here too. */
export const starterEnv = {
  DATAOPS_TEMPORAL_UI_URL: workerEnv.DATAOPS_TEMPORAL_UI_URL,
  DATAOPS_SEARCH_ATTRIBUTES: workerEnv.DATAOPS_SEARCH_ATTRIBUTES,
  DATAOPS_BASE_URL: doc(
    orDefault(httpUrl(), 'http://127.0.0.1:8700'),
    "The worker's service: the CLI names a run's target's submitter by it (`status`'s `retrying` line).",
  ),
  DATAOPS_API_BASE_URL: doc(httpUrl(), "The worker's `/api/v1` base, as DATAOPS_BASE_URL.", {
    default: 'DATAOPS_BASE_URL',
  }),
};

export function loadStarterConfig(
  flags: StarterFlags = {},
  env: Env = processEnv(),
  read: ReadFile = readFromDisk,
): StarterConfig {
  const merged: Env = {
    ...env,
    ...(flags.address ? { TEMPORAL_ADDRESS: flags.address } : {}),
    ...(flags.namespace ? { TEMPORAL_NAMESPACE: flags.namespace } : {}),
    ...(flags.taskQueue ? { TEMPORAL_TASK_QUEUE: flags.taskQueue } : {}),
    ...(flags.profile ? { TEMPORAL_PROFILE: flags.profile } : {}),
  };
  const problems = new Problems();
  const temporal = readTemporalConfig(merged, read, problems);
  const v = readEnv(starterEnv, merged, problems);
  // One name per setting: the worker's. The CLI's earlier name is refused, not ignored, so its links do not vanish.
  if (merged.TEMPORAL_UI_URL !== undefined)
    problems.add('TEMPORAL_UI_URL', 'renamed DATAOPS_TEMPORAL_UI_URL, as the worker names it');
  const tracing = readTracingConfig(merged, problems, 'dataops-cli');
  problems.check();
  const local = /^(localhost|127\.0\.0\.1):7233$/.test(temporal.address);
  const uiUrl = v.DATAOPS_TEMPORAL_UI_URL ?? (local ? 'http://localhost:8233' : undefined);
  return {
    temporal,
    ...(uiUrl ? { uiUrl } : {}),
    ...(tracing ? { tracing } : {}),
    searchAttributes: v.DATAOPS_SEARCH_ATTRIBUTES !== 'off',
    deployments: deploymentsOf(v.DATAOPS_BASE_URL, v.DATAOPS_API_BASE_URL),
  };
}
