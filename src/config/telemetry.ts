/**
 * OpenTelemetry settings, under the standard OTEL_* names: traces go to OTLP/HTTP when an endpoint is set
 * (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`); off otherwise.
 */
import type { TracingConfig } from '../telemetry/tracing-types.js';
import { type Env, type Problems, doc, httpUrl, readEnv, text } from './env.js';

/** The tracing variables, under OpenTelemetry's standard names. */
export const tracingEnv = {
  OTEL_EXPORTER_OTLP_ENDPOINT: doc(
    httpUrl(),
    'OTLP/HTTP traces go to its `/v1/traces`. Traces need the optional OpenTelemetry packages (see docs/operations.md).',
    { default: 'off' },
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: doc(httpUrl(), 'The traces endpoint as given (over the one above).', {
    default: 'off',
  }),
  OTEL_SERVICE_NAME: doc(text(), 'The service name on every span.', {
    default: '`dataops-temporal-worker`; the CLI `dataops-cli`',
  }),
  OTEL_TRACES_EXPORTER: doc(text(), '`none` turns traces off; `otlp` is the only other value.', {
    type: '`otlp`, `none`',
    default: '`otlp`',
  }),
};

export function readTracingConfig(env: Env, problems: Problems, defaultService: string): TracingConfig | undefined {
  const v = readEnv(tracingEnv, env, problems);
  if (v.OTEL_TRACES_EXPORTER !== undefined && !['otlp', 'none'].includes(v.OTEL_TRACES_EXPORTER))
    problems.add('OTEL_TRACES_EXPORTER', `expected otlp or none, got '${v.OTEL_TRACES_EXPORTER}'`);
  if (v.OTEL_TRACES_EXPORTER === 'none') return undefined;
  const base = v.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, '');
  const tracesEndpoint = v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base ? `${base}/v1/traces` : undefined);
  return tracesEndpoint ? { tracesEndpoint, serviceName: v.OTEL_SERVICE_NAME ?? defaultService } : undefined;
}
