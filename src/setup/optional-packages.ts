/**
 * The optional parts of the package, loaded only when configured: tracing (the OpenTelemetry SDK and exporter, and
 * the SDK's interceptors for it) and the S3 claim-check store (the AWS SDK). They are optional peer dependencies: a
 * team that uses neither installs neither. One configured without its packages is refused at start, naming them.
 */
import { ConfigError } from '../config/env.js';
import type { Tracing, TracingConfig } from '../telemetry/tracing-types.js';

const missing = (err: unknown): boolean =>
  (err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' || (err as { code?: string }).code === 'MODULE_NOT_FOUND';

async function optional<T>(load: () => Promise<T>, setting: string, packages: string[]): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (!missing(err)) throw err;
    throw new ConfigError([
      `${setting}: needs ${packages.join(', ')}, optional packages that are not installed (npm install ${packages.join(' ')})`,
    ]);
  }
}

/** The tracing packages, loaded; ConfigError naming them when they are not installed. */
export const loadTracing = () =>
  optional(() => import('../telemetry/tracing.js'), 'OTEL_EXPORTER_OTLP_ENDPOINT (tracing)', [
    '@opentelemetry/exporter-trace-otlp-http',
    '@opentelemetry/resources',
    '@opentelemetry/sdk-trace-base',
    '@opentelemetry/sdk-trace-node',
    '@temporalio/interceptors-opentelemetry',
  ]);

/** Tracing started when configured (its packages loaded then), else undefined. */
export const startConfiguredTracing = async (config: TracingConfig | undefined): Promise<Tracing | undefined> =>
  config ? (await loadTracing()).startTracing(config) : undefined;

export const loadS3BlobStore = () =>
  optional(() => import('../claim-check/s3-blob-store.js'), 'DATAOPS_BLOB_STORE=s3 (claim checks in a bucket)', [
    '@aws-sdk/client-s3',
  ]);
