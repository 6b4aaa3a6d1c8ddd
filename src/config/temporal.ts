/**
 * The Temporal connection settings that the worker and the starter share, read the way every Temporal SDK and the
 * CLI read them (`@temporalio/envconfig`): a profile of `temporal.toml` (`TEMPORAL_CONFIG_FILE`, else
 * `~/.config/temporalio/temporal.toml`; `TEMPORAL_PROFILE`, else `default`), overridden by the standard variables
 * (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, `TEMPORAL_TLS*`, `TEMPORAL_GRPC_META_*`). Ours on
 * top: `TEMPORAL_TASK_QUEUE` and `TEMPORAL_API_KEY_FILE`. The names this project read before are refused, naming
 * their standard replacement, so a deployment that still sets them never connects without the TLS it asked for.
 */
import {
  loadClientConfigProfile,
  type ClientConfigProfile,
  type ClientConfigTLS,
  type ConfigDataSource,
} from '@temporalio/envconfig';
import {
  type Env,
  type Problems,
  type ReadFile,
  doc,
  flag,
  hostPort,
  readEnv,
  secretKey,
  text,
  textOr,
} from './env.js';

export interface TemporalConfig {
  /** @default the profile's address, else localhost:7233 */
  address: string;
  /** @default the profile's namespace, else default */
  namespace: string;
  /** @default $TEMPORAL_TASK_QUEUE, else dataops-temporal */
  taskQueue: string;
  /** TLS (mTLS with a client pair); `false` when turned off explicitly (`TEMPORAL_TLS=false`, `tls.disabled`). */
  tls?: { cert?: Buffer; key?: Buffer; ca?: Buffer; serverName?: string } | false;
  /** API key ($TEMPORAL_API_KEY, $TEMPORAL_API_KEY_FILE or the profile's `api_key`); implies TLS. */
  apiKey?: string;
  /** gRPC headers sent with every call (`TEMPORAL_GRPC_META_*`, the profile's `grpc_meta`). */
  metadata?: Record<string, string>;
}

/** The names read before the standard ones, and what replaced each. */
export const REPLACED_VARIABLES: Record<string, string> = {
  TEMPORAL_TLS_CERT: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
  TEMPORAL_TLS_KEY: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
  TEMPORAL_TLS_CA: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
};

/** The profile as envconfig resolves it; undefined (with the problem added) when it cannot. */
function loadProfile(env: Env, read: ReadFile, problems: Problems): ClientConfigProfile | undefined {
  const vars = Object.fromEntries(
    Object.entries(env).filter(
      (e): e is [string, string] => e[1] !== undefined && (e[1] !== '' || e[0].startsWith('TEMPORAL_GRPC_META_')),
    ),
  );
  // envconfig ignores a config file that does not exist, which would hide a wrong TEMPORAL_CONFIG_FILE.
  let configSource: ConfigDataSource | undefined;
  if (vars.TEMPORAL_CONFIG_FILE !== undefined) {
    try {
      configSource = { data: read(vars.TEMPORAL_CONFIG_FILE) };
    } catch (err) {
      problems.add('TEMPORAL_CONFIG_FILE', `cannot read ${vars.TEMPORAL_CONFIG_FILE}: ${(err as Error).message}`);
      return undefined;
    }
  }
  try {
    return loadClientConfigProfile({ overrideEnvVars: vars, ...(configSource ? { configSource } : {}) });
  } catch (err) {
    // The TOML parser and envconfig name the key or line; values are not echoed.
    const where = vars.TEMPORAL_CONFIG_FILE ?? 'temporal.toml';
    problems.add(vars.TEMPORAL_PROFILE ? `${where}, profile ${vars.TEMPORAL_PROFILE}` : where, (err as Error).message);
    return undefined;
  }
}

/** The profile's certificates and key, with the variable and the TOML key that name each when it cannot be read. */
const CERTIFICATES = [
  { field: 'clientCert', as: 'cert', variable: 'TEMPORAL_TLS_CLIENT_CERT_PATH', toml: 'tls.client_cert_path' },
  { field: 'clientKey', as: 'key', variable: 'TEMPORAL_TLS_CLIENT_KEY_PATH', toml: 'tls.client_key_path' },
  { field: 'serverCACert', as: 'ca', variable: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH', toml: 'tls.server_ca_cert_path' },
] as const;

/** Each certificate or key the profile names: its file read (the variable or TOML key named on failure), or its data. */
function certificates(
  tls: ClientConfigTLS | undefined,
  env: Env,
  read: ReadFile,
  problems: Problems,
): { cert?: Buffer; key?: Buffer; ca?: Buffer } {
  const out: { cert?: Buffer; key?: Buffer; ca?: Buffer } = {};
  for (const c of CERTIFICATES) {
    const source = tls?.[c.field];
    if (!source) continue;
    if ('data' in source) {
      out[c.as] = Buffer.from(source.data);
      continue;
    }
    try {
      out[c.as] = read(source.path);
    } catch (err) {
      const key = env[c.variable] ? c.variable : `${c.toml} of the profile`;
      problems.add(key, `cannot read ${source.path}: ${(err as Error).message}`);
    }
  }
  return out;
}

const path = (what: string) =>
  doc(text(), `${what}, a file path (\`_DATA\` instead of \`_PATH\`: the contents themselves).`);

/**
 * The Temporal connection's variables: the standard ones, which `@temporalio/envconfig` reads over a profile of
 * `temporal.toml` as every Temporal SDK and the CLI do (validated here where envconfig would misread them), and ours.
 */
export const temporalEnv = {
  TEMPORAL_CONFIG_FILE: doc(text(), 'The connection profiles file; the variables below override its profile.', {
    default: '`~/.config/temporalio/temporal.toml`',
  }),
  TEMPORAL_PROFILE: doc(textOr('default'), "The profile of that file (the CLI's `--profile` too)."),
  TEMPORAL_ADDRESS: doc(text(), 'The frontend.', {
    type: 'host:port',
    default: "the profile's, else `localhost:7233`",
  }),
  TEMPORAL_NAMESPACE: doc(text(), 'The namespace.', { default: "the profile's, else `default`" }),
  TEMPORAL_TASK_QUEUE: doc(textOr('dataops-temporal'), 'Our task queue (not a standard variable).'),
  TEMPORAL_API_KEY: doc(secretKey(), 'A Temporal Cloud API key; implies TLS (`_FILE` is ours).'),
  TEMPORAL_TLS: doc(flag(false), 'TLS on alone (`true`), or off even with a certificate (`false`).', {
    default: 'on with a certificate or an API key',
  }),
  TEMPORAL_TLS_CLIENT_CERT_PATH: path('The mTLS client certificate'),
  TEMPORAL_TLS_CLIENT_KEY_PATH: path('Its key'),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: path("The server's CA"),
  TEMPORAL_TLS_SERVER_NAME: doc(text(), "The server's name, where it differs from the address."),
  TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: doc(flag(false), "Skip the server's host name check."),
  'TEMPORAL_GRPC_META_<NAME>': doc(text(), 'A gRPC header sent with every call.'),
};

export function readTemporalConfig(env: Env, read: ReadFile, problems: Problems): TemporalConfig {
  for (const [old, standard] of Object.entries(REPLACED_VARIABLES))
    if (env[old] !== undefined)
      problems.add(old, `no longer read; set ${standard} instead (the standard name the Temporal SDKs and CLI read)`);
  // envconfig reads any word but `true` and `1` as false, so `TEMPORAL_TLS=yes` would turn TLS off: checked first.
  const v = readEnv(temporalEnv, env, problems, read);
  const taskQueue = v.TEMPORAL_TASK_QUEUE;
  const fileKey = v.TEMPORAL_API_KEY;
  const profile = loadProfile(env, read, problems) ?? {};
  const address = profile.address ?? 'localhost:7233';
  const parsedAddress = hostPort().safeParse(address);
  if (!parsedAddress.success)
    problems.add(
      env.TEMPORAL_ADDRESS ? 'TEMPORAL_ADDRESS' : 'address of the profile',
      `expected host:port, got '${address}'`,
    );
  const apiKey = fileKey ?? profile.apiKey;
  const t = profile.tls;
  const { cert, key, ca } = certificates(t, env, read, problems);
  if (Boolean(t?.clientCert) !== Boolean(t?.clientKey))
    problems.add(
      'TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH',
      'set both (an mTLS client pair) or neither',
    );
  const tls: TemporalConfig['tls'] =
    t?.disabled === true
      ? false
      : t || apiKey
        ? {
            ...(cert ? { cert } : {}),
            ...(key ? { key } : {}),
            ...(ca ? { ca } : {}),
            ...(t?.serverName ? { serverName: t.serverName } : {}),
          }
        : undefined;
  return {
    address,
    namespace: profile.namespace ?? 'default',
    taskQueue,
    ...(tls !== undefined ? { tls } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(profile.grpcMeta && Object.keys(profile.grpcMeta).length ? { metadata: profile.grpcMeta } : {}),
  };
}

/** A connection to the Temporal server that failed, said with where it went (the SDK's message names no address). */
export class TemporalConnectError extends Error {
  override readonly name = 'TemporalConnectError';
}

/**
 * Connects with `connect` (`Connection.connect` or `NativeConnection.connect`) to the server of `t`; a failure names
 * that server, so the address said is always the one dialled.
 */
export async function connectingTo<T>(
  t: TemporalConfig,
  connect: (options: ReturnType<typeof temporalConnectionOptions>) => Promise<T>,
): Promise<T> {
  try {
    return await connect(temporalConnectionOptions(t));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    const where = `the Temporal server at ${t.address} (namespace ${t.namespace})`;
    throw new TemporalConnectError(`cannot connect to ${where}: ${why}`, { cause: err });
  }
}

/** Connection options for `Connection.connect` (client) and `NativeConnection.connect` (worker): same shape. */
export function temporalConnectionOptions(t: TemporalConfig): {
  address: string;
  tls?:
    | {
        serverNameOverride?: string;
        serverRootCACertificate?: Buffer;
        clientCertPair?: { crt: Buffer; key: Buffer };
      }
    | false;
  apiKey?: string;
  metadata?: Record<string, string>;
} {
  const { address, tls, apiKey, metadata } = t;
  return {
    address,
    ...(tls === false
      ? { tls: false }
      : tls
        ? {
            tls: {
              ...(tls.serverName ? { serverNameOverride: tls.serverName } : {}),
              ...(tls.ca ? { serverRootCACertificate: tls.ca } : {}),
              ...(tls.cert && tls.key ? { clientCertPair: { crt: tls.cert, key: tls.key } } : {}),
            },
          }
        : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(metadata ? { metadata } : {}),
  };
}
