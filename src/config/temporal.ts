/**
 * The Temporal connection settings that the worker and the starter share: address, namespace, task queue, TLS and
 * API key, read from the environment, and their mapping to the SDK's connection options.
 */
import {
  type Env,
  type Problems,
  type ReadFile,
  fileContents,
  flag,
  hostPort,
  orDefault,
  readEnv,
  secret,
  text,
  textOr,
} from './env.js';

export interface TemporalConfig {
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
}

export function readTemporalConfig(env: Env, read: ReadFile, problems: Problems): TemporalConfig {
  const v = readEnv(
    {
      TEMPORAL_ADDRESS: orDefault(hostPort(), 'localhost:7233'),
      TEMPORAL_NAMESPACE: textOr('default'),
      TEMPORAL_TASK_QUEUE: textOr('dataops-temporal'),
      TEMPORAL_TLS: flag(false),
      TEMPORAL_TLS_CERT: fileContents(read),
      TEMPORAL_TLS_KEY: fileContents(read),
      TEMPORAL_TLS_CA: fileContents(read),
      TEMPORAL_TLS_SERVER_NAME: text(),
    },
    env,
    problems,
  );
  if (Boolean(env.TEMPORAL_TLS_CERT) !== Boolean(env.TEMPORAL_TLS_KEY))
    problems.add('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY', 'set both (an mTLS client pair) or neither');
  const apiKey = secret('TEMPORAL_API_KEY', env, read, problems);
  const { TEMPORAL_TLS_CERT: cert, TEMPORAL_TLS_KEY: key, TEMPORAL_TLS_CA: ca } = v;
  const serverName = v.TEMPORAL_TLS_SERVER_NAME;
  const tlsWanted = Boolean(cert || key || ca || serverName || v.TEMPORAL_TLS);
  return {
    address: v.TEMPORAL_ADDRESS,
    namespace: v.TEMPORAL_NAMESPACE,
    taskQueue: v.TEMPORAL_TASK_QUEUE,
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
export function temporalConnectionOptions(t: TemporalConfig): {
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
