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
import type { WorkerOptions } from '@temporalio/worker';
import { createRequire } from 'node:module';

/** The SDK's workflow interceptor module for OpenTelemetry (bundled into workflow-bundle-otel.js). */
export const OTEL_WORKFLOW_INTERCEPTORS = createRequire(import.meta.url).resolve(
  '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors',
);

export interface TracingConfig {
  /** OTLP/HTTP traces endpoint, e.g. http://collector:4318/v1/traces. */
  tracesEndpoint: string;
  serviceName: string;
}

export interface Tracing {
  /** The workflow interceptor module (for a worker that bundles the workflows at start). */
  workflowModule: string;
  /** Worker options that add the activity interceptors and the workflow span sink. */
  worker: Pick<WorkerOptions, 'interceptors' | 'sinks'>;
  /** Client interceptors: a workflow started by this client continues its trace. */
  clientInterceptors: { workflow: OpenTelemetryWorkflowClientInterceptor[] };
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

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
