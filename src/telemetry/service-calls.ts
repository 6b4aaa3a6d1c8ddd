/**
 * What every call to the service leaves behind, from the client's response hook: a span (method, path template,
 * status; never a query string, token or body) under the activity's span, and metrics on the SDK's meter, so they
 * are served on the same Prometheus endpoint as the SDK's own: calls by endpoint and status, and their latency.
 */
import { SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { MetricMeter } from '@temporalio/common';
import type { ResponseEvent } from '../api/options.js';

const ID_SEGMENT = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d+|[0-9a-f]{24,})$/i;

/** The path without its query, each id segment (a UUID, a number, a long hex id) replaced by `{id}`. */
export function routeTemplate(path: string): string {
  const [route = ''] = path.split('?');
  return route
    .split('/')
    .map((s) => (ID_SEGMENT.test(s) ? '{id}' : s))
    .join('/');
}

/** The response hook of a service client: a span and two metrics per call. `profile` names the credentials used. */
export function observeServiceCalls(
  meter: MetricMeter,
  profile: string,
  tracer: Tracer = trace.getTracer('dataops-temporal'),
): (e: ResponseEvent) => void {
  const calls = meter.createCounter('dataops_service_calls', 'calls', 'Calls to the service, by endpoint and status');
  const latency = meter.createHistogram(
    'dataops_service_call_latency',
    'float',
    'ms',
    'Latency of the calls to the service, by endpoint',
  );
  return (e) => {
    const route = routeTemplate(e.path);
    const endpoint = `${e.method} ${route}`;
    const status = e.status === null ? 'no_answer' : String(e.status);
    calls.add(1, { endpoint, status, profile });
    latency.record(e.durationMs, { endpoint, profile });
    const span = tracer.startSpan(endpoint, {
      kind: SpanKind.CLIENT,
      startTime: Date.now() - e.durationMs,
      attributes: {
        'http.request.method': e.method,
        'url.template': route,
        'dataops.profile': profile,
        ...(e.status === null ? {} : { 'http.response.status_code': e.status }),
      },
    });
    if (e.status === null || e.status >= 500)
      span.setStatus({ code: SpanStatusCode.ERROR, message: e.status === null ? 'no answer' : `HTTP ${e.status}` });
    span.end();
  };
}
