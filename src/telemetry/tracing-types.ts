/**
 * What tracing is configured with and what it gives a worker and a client, without the optional packages that
 * implement it (tracing.ts): the types a team's compiler reads even where those packages are not installed.
 */
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { WorkerOptions } from '@temporalio/worker';

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
  clientInterceptors: { workflow: WorkflowClientInterceptor[] };
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}
