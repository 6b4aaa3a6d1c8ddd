/**
 * The one module that reads the environment (ARCHITECTURE decision 9). Every key is documented with its default.
 * Callers pass `env` explicitly in tests; production code uses `process.env`.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export type Env = Record<string, string | undefined>;

/** Where the local Temporal servers (dev server, time-skipping test server) come from. */
export interface LocalServersConfig {
  /**
   * Cache directory that scripts/install-temporal.sh fills.
   * @default $DATAOPS_TEMPORAL_CACHE_DIR, else $XDG_CACHE_HOME/dataops-temporal, else ~/.cache/dataops-temporal
   */
  cacheDir: string;
  /** An existing Temporal CLI executable. @default $TEMPORAL_CLI_PATH, unset */
  cliPath?: string;
  /** An existing time-skipping test server executable (or launcher). @default $TEMPORAL_TEST_SERVER_PATH, unset */
  testServerPath?: string;
}

export function localServersConfig(env: Env = process.env): LocalServersConfig {
  const cacheDir =
    env.DATAOPS_TEMPORAL_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'dataops-temporal');
  return {
    cacheDir,
    cliPath: env.TEMPORAL_CLI_PATH || undefined,
    testServerPath: env.TEMPORAL_TEST_SERVER_PATH || undefined,
  };
}

/** The standalone simulator process (`npm run simulator`). Flags win over the environment. */
export interface SimulatorProcessConfig {
  /** @default $SIM_PORT, else 8700 */
  port: number;
  /** @default $SIM_HOST, else 127.0.0.1 */
  host: string;
  /** @default $SIM_SEED_FILE, else the built-in DEMO project */
  seedFile?: string;
  /** @default $SIM_STATE_FILE, else state in memory */
  stateFile?: string;
  /** Serve the test controls under /_sim/. @default $SIM_CONTROLS === 'true', else false */
  controls: boolean;
}

export function simulatorProcessConfig(
  env: Env,
  flags: { port?: string; host?: string; seedFile?: string; stateFile?: string; controls?: boolean },
): SimulatorProcessConfig {
  const rawPort = flags.port ?? env.SIM_PORT ?? '8700';
  const port = Number(rawPort);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port / SIM_PORT: expected a port number from 0 to 65535, got '${rawPort}'`);
  return {
    port,
    host: flags.host ?? env.SIM_HOST ?? '127.0.0.1',
    seedFile: flags.seedFile ?? (env.SIM_SEED_FILE || undefined),
    stateFile: flags.stateFile ?? (env.SIM_STATE_FILE || undefined),
    controls: flags.controls ?? env.SIM_CONTROLS === 'true',
  };
}

// ---- the worker ------------------------------------------------------------------------------------------------

/** Thrown when configuration is invalid; lists every wrong key with the reason. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export interface ProfileConfig {
  username: string;
  /** Secret: from DATAOPS[_<PROFILE>]_PASSWORD or the file named by ..._PASSWORD_FILE. */
  password: string;
  projectCode?: string;
  /** Bearer for /api/v1 where the deployment issues its own: a static token or a token file. @default the session */
  apiBearer?: { type: 'static'; token: string } | { type: 'file'; path: string };
}

export interface WorkerConfig {
  temporal: {
    /** @default $TEMPORAL_ADDRESS, else localhost:7233 */
    address: string;
    /** @default $TEMPORAL_NAMESPACE, else default */
    namespace: string;
    /** @default $TEMPORAL_TASK_QUEUE, else dataops-temporal */
    taskQueue: string;
    /** mTLS / TLS: $TEMPORAL_TLS_CERT, $TEMPORAL_TLS_KEY (client pair), $TEMPORAL_TLS_CA, $TEMPORAL_TLS_SERVER_NAME */
    tls?: { cert?: Buffer; key?: Buffer; ca?: Buffer; serverName?: string };
    /** Temporal Cloud API key: $TEMPORAL_API_KEY or $TEMPORAL_API_KEY_FILE (implies TLS). */
    apiKey?: string;
  };
  service: {
    /** @default $DATAOPS_BASE_URL, else http://127.0.0.1:8700 (the local simulator) */
    baseUrl: string;
    /** @default $DATAOPS_API_BASE_URL, else baseUrl */
    apiBaseUrl?: string;
    /** @default $DATAOPS_TIMEOUT_MS, else 30000 */
    timeoutMs: number;
    /** @default $DATAOPS_TOKEN_LIFETIME_MS, else 4 hours */
    tokenLifetimeMs: number;
    /** @default $DATAOPS_JOB_STATUS_PATH, $DATAOPS_JOB_CANCEL_PATH, $DATAOPS_JOB_LIST_PATH, else the deployed paths */
    paths: { jobStatus?: string; jobCancel?: string; jobList?: string };
    /** @default $DATAOPS_PROFILES (comma-separated names), else "default" */
    profiles: Record<string, ProfileConfig>;
  };
  /** Claim-check store shared by all workers. @default $DATAOPS_BLOB_DIR, else .dataops/blobs */
  blobDir: string;
  /** Where export workflows write files. @default $DATAOPS_EXPORT_DIR, else .dataops/exports */
  exportDir: string;
  /** @default $LOG_LEVEL, else INFO */
  logLevel: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** @default $LOG_FORMAT, else pretty */
  logFormat: 'pretty' | 'json';
  /** Prometheus metrics address, e.g. 0.0.0.0:9464. @default $METRICS_PROMETHEUS_ADDRESS, else off */
  prometheusAddress?: string;
  /** Prebuilt workflow bundle. @default $DATAOPS_WORKFLOW_BUNDLE, else dist/workflow-bundle.js when present */
  workflowBundle?: string;
  /** How often waiting activities send heartbeats (live progress in `--follow`). @default $DATAOPS_HEARTBEAT_THROTTLE_MS, else 5000 */
  heartbeatThrottleMs: number;
}

const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

/**
 * Reads and validates the worker's configuration. Every problem is collected and reported at once, by key.
 * Secrets come from variables or from files named by `*_FILE` variables; they are never logged.
 */
/** Reads variables with their defaults, collecting every problem (by key) instead of stopping at the first. */
class EnvReader {
  readonly problems: string[] = [];
  constructor(
    private readonly env: Env,
    private readonly read: (path: string) => Buffer,
  ) {}

  str(key: string, fallback?: string): string | undefined {
    const v = this.env[key];
    return v === undefined || v === '' ? fallback : v;
  }

  file(key: string): Buffer | undefined {
    const path = this.str(key);
    if (!path) return undefined;
    try {
      return this.read(path);
    } catch (err) {
      this.problems.push(
        `${key}: cannot read file '${path}' (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
      return undefined;
    }
  }

  secret(key: string): string | undefined {
    const direct = this.str(key);
    const fromFile = this.file(`${key}_FILE`)?.toString('utf8').trim();
    if (direct && fromFile !== undefined) this.problems.push(`${key} and ${key}_FILE: set only one of them`);
    return direct ?? fromFile;
  }

  int(key: string, fallback: number, min: number): number {
    const raw = this.str(key);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) {
      this.problems.push(`${key}: expected an integer of at least ${min}, got '${raw}'`);
      return fallback;
    }
    return n;
  }

  url(key: string, fallback?: string): string | undefined {
    const raw = this.str(key, fallback);
    if (raw === undefined) return undefined;
    try {
      const u = new URL(raw);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
      if (u.username || u.password) this.problems.push(`${key}: must not carry credentials in the URL`);
    } catch {
      this.problems.push(`${key}: expected an http(s) URL, got '${raw}'`);
    }
    return raw;
  }

  path(key: string, placeholder: string): string | undefined {
    const raw = this.str(key);
    if (raw !== undefined && (!raw.startsWith('/') || !raw.includes(placeholder)))
      this.problems.push(`${key}: expected a path starting with / and containing ${placeholder}, got '${raw}'`);
    return raw;
  }
}

/** The Temporal connection: shared by the worker and the starter. */
function readTemporal(r: EnvReader): WorkerConfig['temporal'] {
  const address = r.str('TEMPORAL_ADDRESS', 'localhost:7233')!;
  if (!/^[^\s:/]+:\d{1,5}$/.test(address)) r.problems.push(`TEMPORAL_ADDRESS: expected host:port, got '${address}'`);
  const cert = r.file('TEMPORAL_TLS_CERT');
  const key = r.file('TEMPORAL_TLS_KEY');
  const ca = r.file('TEMPORAL_TLS_CA');
  if (Boolean(r.str('TEMPORAL_TLS_CERT')) !== Boolean(r.str('TEMPORAL_TLS_KEY')))
    r.problems.push('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY: set both (an mTLS client pair) or neither');
  const serverName = r.str('TEMPORAL_TLS_SERVER_NAME');
  const apiKey = r.secret('TEMPORAL_API_KEY');
  const tlsWanted = Boolean(cert || key || ca || serverName || r.str('TEMPORAL_TLS') === 'true');
  return {
    address,
    namespace: r.str('TEMPORAL_NAMESPACE', 'default')!,
    taskQueue: r.str('TEMPORAL_TASK_QUEUE', 'dataops-temporal')!,
    ...(tlsWanted || apiKey
      ? {
          tls: {
            ...(cert ? { cert } : {}),
            ...(key ? { key } : {}),
            ...(ca ? { ca } : {}),
            ...(serverName ? { serverName } : {}),
          },
        }
      : {}),
    ...(apiKey ? { apiKey } : {}),
  };
}

/** Connection options for `Connection.connect` (client) and `NativeConnection.connect` (worker): same shape. */
export function temporalConnectionOptions(t: WorkerConfig['temporal']): {
  address: string;
  tls?: {
    serverNameOverride?: string;
    serverRootCACertificate?: Buffer;
    clientCertPair?: { crt: Buffer; key: Buffer };
  };
  apiKey?: string;
} {
  const { address, tls, apiKey } = t;
  return {
    address,
    ...(tls
      ? {
          tls: {
            ...(tls.serverName ? { serverNameOverride: tls.serverName } : {}),
            ...(tls.ca ? { serverRootCACertificate: tls.ca } : {}),
            ...(tls.cert && tls.key ? { clientCertPair: { crt: tls.cert, key: tls.key } } : {}),
          },
        }
      : {}),
    ...(apiKey ? { apiKey } : {}),
  };
}

/** The starter CLI: the Temporal connection and the Web UI address for links. */
export interface StarterConfig {
  temporal: WorkerConfig['temporal'];
  /** @default $TEMPORAL_UI_URL, else http://localhost:8233 for a local server, else none */
  uiUrl?: string;
}

export function loadStarterConfig(
  env: Env = process.env,
  read: (path: string) => Buffer = readFileSync,
): StarterConfig {
  const r = new EnvReader(env, read);
  const temporal = readTemporal(r);
  const local = /^(localhost|127\.0\.0\.1):7233$/.test(temporal.address);
  const uiUrl = r.url('TEMPORAL_UI_URL', local ? 'http://localhost:8233' : undefined);
  if (r.problems.length) throw new ConfigError(r.problems);
  return { temporal, ...(uiUrl ? { uiUrl: uiUrl.replace(/\/+$/, '') } : {}) };
}

export function loadWorkerConfig(env: Env = process.env, read: (path: string) => Buffer = readFileSync): WorkerConfig {
  const r = new EnvReader(env, read);
  const { problems } = r;
  const str = r.str.bind(r);
  const secret = r.secret.bind(r);
  const int = r.int.bind(r);
  const url = r.url.bind(r);
  const path = r.path.bind(r);
  const temporal = readTemporal(r);

  // Profiles
  const profileNames = (str('DATAOPS_PROFILES', 'default') ?? 'default')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const profiles: Record<string, ProfileConfig> = {};
  for (const name of profileNames) {
    if (!/^[A-Za-z0-9_-]+$/.test(name)) {
      problems.push(`DATAOPS_PROFILES: profile name '${name}' may use letters, digits, _ and - only`);
      continue;
    }
    const prefix = name === 'default' ? 'DATAOPS_' : `DATAOPS_${name.toUpperCase().replace(/-/g, '_')}_`;
    const username = str(`${prefix}USERNAME`);
    const password = secret(`${prefix}PASSWORD`);
    if (!username) problems.push(`${prefix}USERNAME: required for profile '${name}'`);
    if (!password) problems.push(`${prefix}PASSWORD or ${prefix}PASSWORD_FILE: required for profile '${name}'`);
    const token = secret(`${prefix}API_TOKEN`);
    const tokenFile = str(`${prefix}API_TOKEN_PATH`);
    const projectCode = str(`${prefix}PROJECT_CODE`);
    profiles[name] = {
      username: username ?? '',
      password: password ?? '',
      ...(projectCode ? { projectCode } : {}),
      ...(token
        ? { apiBearer: { type: 'static' as const, token } }
        : tokenFile
          ? { apiBearer: { type: 'file' as const, path: tokenFile } }
          : {}),
    };
  }

  const logLevel = (str('LOG_LEVEL', 'INFO') ?? 'INFO').toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    problems.push(`LOG_LEVEL: expected one of ${LOG_LEVELS.join(', ')}, got '${logLevel}'`);
  const logFormat = str('LOG_FORMAT', 'pretty');
  if (logFormat !== 'pretty' && logFormat !== 'json')
    problems.push(`LOG_FORMAT: expected pretty or json, got '${logFormat}'`);
  const prometheusAddress = str('METRICS_PROMETHEUS_ADDRESS');
  if (prometheusAddress && !/^[^\s:]+:\d{1,5}$/.test(prometheusAddress))
    problems.push(`METRICS_PROMETHEUS_ADDRESS: expected host:port, got '${prometheusAddress}'`);

  const config: WorkerConfig = {
    temporal,
    service: {
      baseUrl: url('DATAOPS_BASE_URL', 'http://127.0.0.1:8700')!,
      ...(str('DATAOPS_API_BASE_URL') ? { apiBaseUrl: url('DATAOPS_API_BASE_URL') } : {}),
      timeoutMs: int('DATAOPS_TIMEOUT_MS', 30_000, 1),
      tokenLifetimeMs: int('DATAOPS_TOKEN_LIFETIME_MS', 4 * 3_600_000, 60_000),
      paths: {
        ...(path('DATAOPS_JOB_STATUS_PATH', '{job_id}') ? { jobStatus: str('DATAOPS_JOB_STATUS_PATH') } : {}),
        ...(path('DATAOPS_JOB_CANCEL_PATH', '{job_id}') ? { jobCancel: str('DATAOPS_JOB_CANCEL_PATH') } : {}),
        ...(path('DATAOPS_JOB_LIST_PATH', '{project_code}') ? { jobList: str('DATAOPS_JOB_LIST_PATH') } : {}),
      },
      profiles,
    },
    blobDir: str('DATAOPS_BLOB_DIR', join('.dataops', 'blobs'))!,
    exportDir: str('DATAOPS_EXPORT_DIR', join('.dataops', 'exports'))!,
    logLevel: logLevel as WorkerConfig['logLevel'],
    logFormat: logFormat === 'json' ? 'json' : 'pretty',
    ...(prometheusAddress ? { prometheusAddress } : {}),
    ...(str('DATAOPS_WORKFLOW_BUNDLE') ? { workflowBundle: str('DATAOPS_WORKFLOW_BUNDLE') } : {}),
    heartbeatThrottleMs: int('DATAOPS_HEARTBEAT_THROTTLE_MS', 5_000, 100),
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/** The configuration with secrets replaced, for logging at start-up. */
export function describeConfig(config: WorkerConfig): Record<string, unknown> {
  return {
    temporal: {
      address: config.temporal.address,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      tls: Boolean(config.temporal.tls),
      apiKey: config.temporal.apiKey ? '(set)' : '(none)',
    },
    service: {
      baseUrl: config.service.baseUrl,
      apiBaseUrl: config.service.apiBaseUrl ?? config.service.baseUrl,
      profiles: Object.fromEntries(
        Object.entries(config.service.profiles).map(([n, p]) => [
          n,
          { username: p.username, projectCode: p.projectCode ?? null },
        ]),
      ),
    },
    blobDir: config.blobDir,
    exportDir: config.exportDir,
    metrics: config.prometheusAddress ?? 'off',
  };
}
