/**
 * A span around a piece of our own work, in the active trace or the one `parent` names. With no tracer provider
 * registered (tracing not configured) the API's tracer records nothing and `fn` runs as is.
 */
import { context, SpanStatusCode, trace, type Context, type SpanOptions } from '@opentelemetry/api';

/** Runs `fn` in a span named `name` (child of `parent`, by default the active context); a failure marks it. */
export function inSpan<T>(
  name: string,
  fn: () => Promise<T>,
  options: SpanOptions = {},
  parent: Context = context.active(),
): Promise<T> {
  return trace.getTracer('dataops-temporal').startActiveSpan(name, options, parent, async (span) => {
    try {
      return await fn();
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}
