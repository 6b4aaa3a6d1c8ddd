/**
 * A write sent by a target's submitter stays in the trace of the workflow that asked for it: the requesting activity
 * hands the submitter its trace context with the request, and the batch sends that request in a span of that trace,
 * linked to the batch's own span, so the service call's span (src/telemetry/service-calls.ts) lands under it. Without
 * tracing configured, nothing is carried and nothing is started.
 */
import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { inSpan } from '../telemetry/spans.js';

/** The active trace context, as W3C headers (`traceparent`, `tracestate`); undefined when there is none. */
export function traceCarrier(): Record<string, string> | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/** Runs `fn` in a span named `name` of the trace `carrier` names, linked to the active span; as is without one. */
export function inTraceOf<T>(
  carrier: Record<string, string> | undefined,
  name: string,
  fn: () => Promise<T>,
): Promise<T> {
  if (!carrier) return fn();
  const here = trace.getSpanContext(context.active());
  const parent = propagation.extract(ROOT_CONTEXT, carrier);
  return inSpan(name, fn, here ? { links: [{ context: here }] } : {}, parent);
}
