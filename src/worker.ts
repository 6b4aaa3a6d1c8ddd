/**
 * The worker: reads and validates its configuration, logs in nobody until an activity needs it, registers every
 * workflow and activity on the task queue, and shuts down gracefully on SIGINT/SIGTERM (the SDK's default signals).
 * Scale out by running more workers on the same task queue.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  makeTelemetryFilterString,
  NativeConnection,
  Runtime,
  Worker,
  type LogEntry,
  type WorkerOptions,
} from '@temporalio/worker';
import { createActivities, type ActivityDeps } from './activities/index.js';
import { openClaimChecks } from './setup/claim-checks.js';
import { waitsQueueActivities } from './contract/activity-options.js';
import { ServiceClient } from './api/index.js';
import { ConfigError } from './config/env.js';
import { TemporalConnectError, connectingTo } from './config/temporal.js';
import { countFailures } from './telemetry/activity-failures.js';
import { watchCredentialLifetimes } from './telemetry/credential-lifetime.js';
import { observeServiceCalls } from './telemetry/service-calls.js';
import { WorkerLogger } from './telemetry/worker-logger.js';
import { loadTracing, startConfiguredTracing } from './setup/optional-packages.js';
import { openLineage } from './setup/lineage.js';
import type { Tracing } from './telemetry/tracing-types.js';
import { checkSearchAttributes, namespaceReadiness } from './setup/namespace-ready.js';
import { describeConfig, loadWorkerConfig, type WorkerConfig } from './config/worker.js';
import { STICKY_TIMEOUT_MS } from './config/worker-settings.js';
import { dataopsNexusHandler } from './nexus/handler.js';
import { isEntryPoint } from './local/entry-point.js';

/**
 * One client per credential profile. Secrets stay inside the clients; nothing else holds them. A configuration that
 * asks for tracing (OTEL_EXPORTER_OTLP_ENDPOINT) without its optional packages is refused here (ConfigError, naming
 * them): a worker never runs without the tracing it was configured for.
 */
export async function buildActivityDeps(config: WorkerConfig): Promise<ActivityDeps & { close(): Promise<void> }> {
  if (config.tracing) await loadTracing();
  const logger = Runtime.instance().logger;
  const claimChecks = await openClaimChecks(config, (message, meta) => {
    logger.info(message, meta);
  });
  const stopWatching = watchCredentialLifetimes(config.service.profiles, Runtime.instance().metricMeter, (m, meta) => {
    logger.warn(m, meta);
  });
  const lineage = openLineage(
    config.lineage,
    Runtime.instance().metricMeter,
    (m, meta) => {
      logger.warn(m, meta);
    },
    (m, meta) => {
      logger.info(m, meta);
    },
  );
  const readiness = namespaceReadiness(config);
  const profiles: ActivityDeps['profiles'] = {};
  for (const [name, p] of Object.entries(config.service.profiles)) {
    profiles[name] = {
      client: new ServiceClient({
        baseUrl: config.service.baseUrl,
        ...(config.service.apiBaseUrl ? { apiBaseUrl: config.service.apiBaseUrl } : {}),
        ...(p.credentials ? { credentials: p.credentials } : {}),
        ...(p.apiBearer ? { apiBearer: p.apiBearer } : {}),
        paths: config.service.paths,
        timeoutMs: config.service.timeoutMs,
        tokenLifetimeMs: config.service.tokenLifetimeMs,
        onResponse: observeServiceCalls(Runtime.instance().metricMeter, name),
      }),
      ...(p.projectCode ? { projectCode: p.projectCode } : {}),
      ...(p.soleWriter ? { soleWriter: true } : {}),
      scoreScale: config.service.scoreScale,
    };
  }
  return {
    profiles,
    store: claimChecks.store,
    exportDir: config.exportDir,
    submitSettleMs: config.submitSettleMs,
    searchAttributes: config.searchAttributes !== 'off',
    waitsTaskQueue: config.waitsTaskQueue,
    ...(config.blobRetentionDays ? { claimCheckRetentionMs: config.blobRetentionDays * 24 * 3_600_000 } : {}),
    ...(config.temporalUiUrl ? { temporalUiUrl: config.temporalUiUrl } : {}),
    ...(lineage ? { lineage } : {}),
    jobLinks: config.jobLinks,
    ...(readiness ? { namespaceReady: readiness } : {}),
    close: async () => {
      // Events still queued get what is left of the shutdown grace; any still unsent then are lost.
      await lineage?.emitter.flush(config.shutdownGraceMs);
      await lineage?.emitter.close();
      stopWatching();
      claimChecks.close();
      Object.values(profiles).forEach((p) => p.client.close());
    },
  };
}

/**
 * The workflows: the prebuilt bundle for production when there is one, otherwise bundled at start (development),
 * with `tracing`'s workflow interceptor module when traced.
 */
export function workflowSource(
  config: Pick<WorkerConfig, 'workflowBundle' | 'tracing'>,
  tracing?: Pick<Tracing, 'workflowModule'>,
): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'interceptors'> {
  // With tracing, the workflows run with the OpenTelemetry interceptor module: the bundle built with it.
  const name = config.tracing ? 'workflow-bundle-otel.js' : 'workflow-bundle.js';
  const prebuilt = config.workflowBundle ?? fileURLToPath(new URL(`../${name}`, import.meta.url));
  if (existsSync(prebuilt)) return { workflowBundle: { codePath: prebuilt } };
  if (config.workflowBundle) throw new ConfigError([`DATAOPS_WORKFLOW_BUNDLE: no file at '${config.workflowBundle}'`]);
  return {
    workflowsPath: fileURLToPath(new URL('./workflows/index.js', import.meta.url)),
    ...(tracing ? { interceptors: { workflowModules: [tracing.workflowModule] } } : {}),
  };
}

/** One JSON object per log entry. Errors keep their name, message and stack (JSON.stringify alone writes `{}`). */
export function jsonLogLine(entry: LogEntry): string {
  const { level, message, timestampNanos, meta } = entry;
  return JSON.stringify(
    { ts: new Date(Number(timestampNanos / 1_000_000n)).toISOString(), level, message, ...meta },
    (_key, value: unknown) =>
      value instanceof Error
        ? {
            name: value.name,
            message: value.message,
            stack: value.stack,
            ...('cause' in value ? { cause: value.cause } : {}),
          }
        : typeof value === 'bigint'
          ? value.toString()
          : value,
  );
}

/**
 * Installs the SDK runtime once per process: logger, and Prometheus metrics when configured. Core's own logs (the
 * Rust side: polling, connections, nondeterminism) are forwarded to the same logger, so they come out in the same
 * format (one JSON object per line with LOG_FORMAT=json) instead of Rust's console format on stderr. Core logs at
 * WARN and above, or at LOG_LEVEL when that is DEBUG or TRACE.
 */
export function installRuntime(config: WorkerConfig): void {
  const coreLevel = config.logLevel === 'DEBUG' || config.logLevel === 'TRACE' ? config.logLevel : 'WARN';
  Runtime.install({
    logger: new WorkerLogger(
      config.logLevel,
      config.waitsTaskQueue,
      config.logFormat === 'json' ? (entry: LogEntry) => console.log(jsonLogLine(entry)) : undefined,
    ),
    telemetryOptions: {
      logging: { forward: {}, filter: makeTelemetryFilterString({ core: coreLevel, other: 'ERROR' }) },
      ...(config.prometheusAddress ? { metrics: { prometheus: { bindAddress: config.prometheusAddress } } } : {}),
    },
  });
}

export async function connect(config: WorkerConfig): Promise<NativeConnection> {
  return connectingTo(config.temporal, (options) => NativeConnection.connect(options));
}

/**
 * The worker for a configuration: one on the task queue (workflows, every activity, the Nexus service) and one on its
 * waits queue (the heartbeating waits, each holding a slot for its whole job, so they get slots of their own).
 * Run, stop and drain them as one.
 */
export class ProjectWorker {
  constructor(
    readonly main: Worker,
    readonly waits: Worker,
  ) {}
  run(): Promise<void> {
    return Promise.all([this.main.run(), this.waits.run()]).then(() => undefined);
  }
  async runUntil<T>(fn: Promise<T> | (() => Promise<T>)): Promise<T> {
    const running = this.run();
    try {
      return await (typeof fn === 'function' ? fn() : fn);
    } finally {
      this.shutdown();
      await running;
    }
  }
  shutdown(): void {
    for (const w of [this.main, this.waits]) if (w.getState() === 'RUNNING') w.shutdown();
  }
}

/** Creates the worker pair for the configuration (on an existing connection, or a new one). */
export async function createWorker(
  config: WorkerConfig,
  connection: NativeConnection,
  extra: Partial<WorkerOptions> = {},
  tracing?: Tracing,
): Promise<{ worker: ProjectWorker; deps: Awaited<ReturnType<typeof buildActivityDeps>> }> {
  await checkSearchAttributes(config, connection);
  // Checked at start, as above: the input checks need not ask again.
  const deps = { ...(await buildActivityDeps(config)), namespaceReady: undefined };
  const activities = createActivities(deps);
  const activityInterceptors = [...(tracing?.worker.interceptors?.activity ?? []), countFailures];
  const common = {
    connection,
    namespace: config.temporal.namespace,
    maxHeartbeatThrottleInterval: config.heartbeatThrottleMs,
    defaultHeartbeatThrottleInterval: config.heartbeatThrottleMs,
    shutdownGraceTime: config.shutdownGraceMs,
    ...(config.deployment
      ? {
          workerDeploymentOptions: {
            useWorkerVersioning: true,
            version: config.deployment,
            // Every workflow declares its own (src/workflows/index.ts); this covers one that would not.
            defaultVersioningBehavior: 'PINNED',
          } as const,
        }
      : {}),
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: config.capacity.activityPollers } as const,
  };
  const source = workflowSource(config, tracing);
  const main = await Worker.create({
    ...common,
    taskQueue: config.temporal.taskQueue,
    activities,
    nexusServices: [dataopsNexusHandler({ searchAttributes: config.searchAttributes !== 'off' })],
    ...source,
    interceptors: { ...source.interceptors, ...tracing?.worker.interceptors, activity: activityInterceptors },
    ...(tracing ? { sinks: tracing.worker.sinks } : {}),
    maxConcurrentActivityTaskExecutions: config.capacity.maxConcurrentActivities,
    maxConcurrentWorkflowTaskExecutions: config.capacity.maxConcurrentWorkflowTasks,
    maxConcurrentLocalActivityExecutions: config.capacity.maxConcurrentLocalActivities,
    maxCachedWorkflows: config.capacity.maxCachedWorkflows,
    workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: config.capacity.workflowPollers },
    stickyQueueScheduleToStartTimeout: STICKY_TIMEOUT_MS,
    ...extra,
  });
  const waits = await Worker.create({
    ...common,
    taskQueue: config.waitsTaskQueue,
    activities: waitsQueueActivities(activities),
    interceptors: { activity: activityInterceptors },
    maxConcurrentActivityTaskExecutions: config.capacity.maxConcurrentWaits,
  });
  return { worker: new ProjectWorker(main, waits), deps };
}

// For a team's own worker (`dataops-temporal/worker`): the configuration read from the environment, the activities'
// dependencies built from it, and the waits task queue a second worker serves (see README "In your own worker").
export { loadWorkerConfig, type WorkerConfig } from './config/worker.js';
export { STICKY_TIMEOUT_MS } from './config/worker-settings.js';
export { waitsQueueActivities, waitsTaskQueue } from './contract/activity-options.js';
export { ConfigError } from './config/env.js';
export type { Tracing } from './telemetry/tracing-types.js';

/**
 * Tracing as the configuration asks (OTEL_EXPORTER_OTLP_ENDPOINT), started: its `worker` options (activity
 * interceptors, the workflows' span sink) and `workflowModule` (the workflows' interceptor module) go into the team's
 * `Worker.create`, `shutdown()` at the end. Undefined when not configured; ConfigError without its packages.
 */
export const startTracing = (config: WorkerConfig): Promise<Tracing | undefined> =>
  startConfiguredTracing(config.tracing);

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  installRuntime(config);
  Runtime.instance().logger.info('worker configuration', describeConfig(config));
  const tracing = await startTracing(config);
  const connection = await connect(config);
  try {
    const { worker, deps } = await createWorker(config, connection, {}, tracing);
    try {
      await worker.run();
    } finally {
      await deps.close();
    }
  } finally {
    await connection.close();
    await tracing?.shutdown();
  }
}

if (isEntryPoint(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(err instanceof ConfigError || err instanceof TemporalConnectError ? err.message : err);
    process.exit(1);
  });
}
