/**
 * OpenTelemetry settings, under the standard OTEL_* names: traces go to OTLP/HTTP when an endpoint is set
 * (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`); off otherwise.
 */
import type { TracingConfig } from '../telemetry/tracing-types.js';
import { type Env, type Problems, httpUrl, readEnv, text } from './env.js';

export function readTracingConfig(env: Env, problems: Problems, defaultService: string): TracingConfig | undefined {
  const v = readEnv(
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl(),
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl(),
      OTEL_SERVICE_NAME: text(),
      OTEL_TRACES_EXPORTER: text(),
    },
    env,
    problems,
  );
  if (v.OTEL_TRACES_EXPORTER !== undefined && !['otlp', 'none'].includes(v.OTEL_TRACES_EXPORTER))
    problems.add('OTEL_TRACES_EXPORTER', `expected otlp or none, got '${v.OTEL_TRACES_EXPORTER}'`);
  if (v.OTEL_TRACES_EXPORTER === 'none') return undefined;
  const base = v.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, '');
  const tracesEndpoint = v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base ? `${base}/v1/traces` : undefined);
  return tracesEndpoint ? { tracesEndpoint, serviceName: v.OTEL_SERVICE_NAME ?? defaultService } : undefined;
}
