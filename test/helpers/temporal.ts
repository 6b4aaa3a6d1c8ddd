/**
 * Ready Temporal environments for test files: the time-skipping test server or the dev server, both from
 * scripts/install-temporal.sh when installed (falling back to the SDK's own download), and a worker per test
 * on a unique task queue.
 */
import { randomUUID } from 'node:crypto';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode, type WorkerOptions } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { waitsQueueActivities, waitsTaskQueue } from '../../src/contract/activity-options.js';
import { localServersConfig } from '../../src/config/local-servers.js';
import { resolveDevServer, resolveTestServer, type ResolvedServer } from '../../src/local/temporal-servers.js';
import { underCi } from './needs.js';
import { SEARCH_ATTRIBUTES } from '../../src/contract/search-attributes.js';

let runtimeInstalled = false;
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger('ERROR') });
}

export interface TestEnv {
  env: TestWorkflowEnvironment;
  server: ResolvedServer;
}

/**
 * Starts a local server, again when it did not answer in time: Core gives it 5 s (a constant in its ephemeral-server
 * code), which a JVM on a loaded 2-core machine can overrun. Any other failure is thrown at once.
 */
async function starting<T>(start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (attempt >= attempts || !/did not start within/.test(String(err))) throw err;
    }
  }
}

/**
 * `server`, unless this is CI (`CI=true`) and the project did not install it: the SDK would download it, which CI
 * cannot (no internet) and whose error would not say why. Then it fails at once, naming the install command.
 */
export function installedUnderCi(server: ResolvedServer, what: string): ResolvedServer {
  if (underCi() && server.source === 'sdk-download')
    throw new Error(
      `CI=true, and ${what} is not installed (the SDK would download it): run npm run install-temporal ` +
        '(Go builds the Temporal CLI; Java 17 and Maven resolve the test server)',
    );
  return server;
}

/** A time-skipping environment on the Java test server. Tear it down with `env.teardown()`. */
export async function startTimeSkippingEnv(): Promise<TestEnv> {
  quietRuntime();
  const server = installedUnderCi(resolveTestServer(localServersConfig()), 'the time-skipping test server');
  const env = await starting(() =>
    TestWorkflowEnvironment.createTimeSkipping({ server: { executable: server.executable } }),
  );
  return { env, server };
}

/**
 * A dev-server environment (Temporal CLI, SQLite in memory), with `serverConfig` as its dynamic config values. Tear it
 * down with `env.teardown()`.
 */
export async function startDevServerEnv(
  serverConfig: Record<string, string | number> = {},
  options: { searchAttributes?: boolean; metricsPort?: number } = {},
): Promise<TestEnv> {
  quietRuntime();
  const server = installedUnderCi(resolveDevServer(localServersConfig()), 'the Temporal CLI dev server');
  const extraArgs = [
    ...Object.entries(serverConfig).flatMap(([k, v]) => ['--dynamic-config-value', `${k}=${v}`]),
    // Its Prometheus endpoint (`/metrics`), for a test that counts what the server was asked.
    ...(options.metricsPort === undefined ? [] : ['--metrics-port', String(options.metricsPort)]),
  ];
  // Registered at launch, as `dataops setup search-attributes` would: known to every frontend at once.
  const searchAttributes = options.searchAttributes ? { searchAttributes: Object.values(SEARCH_ATTRIBUTES) } : {};
  const env = await starting(() =>
    TestWorkflowEnvironment.createLocal({ server: { executable: server.executable, extraArgs, ...searchAttributes } }),
  );
  return { env, server };
}

const bundles = new Map<string, Promise<{ code: string }>>();

/** Bundles a workflows module once per test process. */
export function workflowBundle(workflowsPath: string): Promise<{ code: string }> {
  let bundle = bundles.get(workflowsPath);
  if (!bundle) {
    bundle = bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
    bundles.set(workflowsPath, bundle);
  }
  return bundle;
}

export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID()}`;
}

/**
 * Runs `fn` while a worker polls a fresh task queue, and shuts the worker down afterwards.
 * `fn` receives the task queue.
 */
const TEST_HEARTBEAT_THROTTLE_MS = 5_000;

export async function withWorker<T>(
  env: TestWorkflowEnvironment,
  options: Omit<WorkerOptions, 'taskQueue' | 'connection' | 'workflowBundle' | 'workflowsPath'> & {
    workflowsPath: string;
  },
  fn: (taskQueue: string) => Promise<T>,
  taskQueue: string = uniqueTaskQueue(),
): Promise<T> {
  const { workflowsPath, ...rest } = options;
  // A short heartbeat throttle, as a worker with DATAOPS_HEARTBEAT_THROTTLE_MS=5000 has (the default bounds it at 60 s):
  // the tests' activities hear of their own cancellation within seconds, and their progress is live.
  const throttle = {
    maxHeartbeatThrottleInterval: TEST_HEARTBEAT_THROTTLE_MS,
    defaultHeartbeatThrottleInterval: TEST_HEARTBEAT_THROTTLE_MS,
  };
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: await workflowBundle(workflowsPath),
    ...throttle,
    ...rest,
  });
  // The heartbeating waits poll the waits queue, as with the project's worker (src/worker.ts); a worker without them
  // (a fixture's own activities) has nothing to serve there.
  const waitActivities = waitsQueueActivities(rest.activities ?? {});
  if (Object.keys(waitActivities).length === 0) return worker.runUntil(fn(taskQueue));
  const waits = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue: waitsTaskQueue(taskQueue),
    activities: waitActivities,
    ...throttle,
  });
  return waits.runUntil(worker.runUntil(fn(taskQueue)));
}
