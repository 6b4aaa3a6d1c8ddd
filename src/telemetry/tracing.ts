/**
 * OpenTelemetry tracing, on when an OTLP endpoint is configured: the SDK's interceptors for the client (a started
 * workflow carries the caller's trace), workflows (the prebuilt `workflow-bundle-otel.js` holds their interceptor
 * module, and the `exporter` sink sends their spans) and activities, plus a span per service call
 * (service-calls.ts), all exported over OTLP/HTTP.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import { createRequire } from 'node:module';
import type { Tracing, TracingConfig } from './tracing-types.js';

export type { Tracing, TracingConfig } from './tracing-types.js';

/** The SDK's workflow interceptor module for OpenTelemetry (bundled into workflow-bundle-otel.js). */
export const OTEL_WORKFLOW_INTERCEPTORS = createRequire(import.meta.url).resolve(
  '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors',
);

/** Registers the global tracer provider (with the async-context manager and W3C propagation) and its exporter. */
export function startTracing(config: TracingConfig): Tracing {
  const resource = new Resource({ 'service.name': config.serviceName });
  const processor = new BatchSpanProcessor(new OTLPTraceExporter({ url: config.tracesEndpoint }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  return {
    workflowModule: OTEL_WORKFLOW_INTERCEPTORS,
    worker: {
      interceptors: {
        activity: [
          (ctx) => ({
            inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
            outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
          }),
        ],
      },
      sinks: { exporter: makeWorkflowExporter(processor, resource) },
    },
    clientInterceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
    shutdown: () => provider.shutdown(),
  };
}
