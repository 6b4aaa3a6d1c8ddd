/**
 * The worker's configuration: the Temporal connection, the service (its credential profiles: profiles.ts), storage,
 * logs, metrics, tracing and versioning. Every key has a documented default; secrets are never shown.
 */
import { type Env, Problems, type ReadFile, processEnv, readEnv, readFromDisk } from './env.js';
import type { ScoreScale } from '../vocabulary.js';
import { type LogLevel, workerEnv } from './worker-settings.js';
import { waitsTaskQueue } from '../contract/activity-options.js';
import { type ProfileConfig, readProfiles } from './profiles.js';
import { type TemporalConfig, readTemporalConfig } from './temporal.js';
import { readTracingConfig } from './telemetry.js';
import { type ObjectStoreConfig, readObjectStoreConfig } from './object-store.js';
import type { TracingConfig } from '../telemetry/tracing-types.js';
import type { JobLinks } from '../contract/job-links.js';
import { type LineageConfig, readJobLinks, readLineageConfig } from './lineage.js';

export interface WorkerConfig {
  temporal: TemporalConfig;
  service: {
    /** @default $DATAOPS_BASE_URL, else http://127.0.0.1:8700 (the local simulator) */
    baseUrl: string;
    /** @default $DATAOPS_API_BASE_URL, else baseUrl */
    apiBaseUrl?: string;
    /** Per-request timeout, 1 ms to 10 minutes. @default $DATAOPS_TIMEOUT_MS, else 30000 */
    timeoutMs: number;
    /** @default $DATAOPS_TOKEN_LIFETIME_MS, else 4 hours */
    tokenLifetimeMs: number;
    /** @default $DATAOPS_JOB_STATUS_PATH, $DATAOPS_JOB_CANCEL_PATH, $DATAOPS_JOB_LIST_PATH, else the deployed paths */
    paths: { jobStatus?: string; jobCancel?: string; jobList?: string };
    /** @default $DATAOPS_PROFILES (comma-separated names), else "default" */
    profiles: Record<string, ProfileConfig>;
    /** How the deployment reports `result.score`. @default $DATAOPS_SCORE_SCALE, else fraction (TestGen 5.134) */
    scoreScale: ScoreScale;
  };
  /**
   * The local claim-check directory: the store when there is no object store (all workers must share it), and where
   * `local:` references written before a move to an object store are read. @default $DATAOPS_BLOB_DIR, else .dataops/blobs
   */
  blobDir: string;
  /** The S3-compatible claim-check store shared by every host ($DATAOPS_BLOB_STORE=s3). @default none: blobDir */
  objectStore?: ObjectStoreConfig;
  /**
   * Blobs not written (nor, locally, read) for this many days are removed: in the local directory at start and
   * daily; in the object store by a lifecycle rule the worker sets on its prefix. Set it above the longest approval
   * wait of a promotion. @default $DATAOPS_BLOB_RETENTION_DAYS, else kept forever
   */
  blobRetentionDays?: number;
  /** Where export workflows write files. @default $DATAOPS_EXPORT_DIR, else .dataops/exports */
  exportDir: string;
  /** @default $LOG_LEVEL, else INFO */
  logLevel: LogLevel;
  /** @default $LOG_FORMAT, else pretty */
  logFormat: 'pretty' | 'json';
  /** Prometheus metrics address, e.g. 0.0.0.0:9464. @default $METRICS_PROMETHEUS_ADDRESS, else off */
  prometheusAddress?: string;
  /** Prebuilt workflow bundle. @default $DATAOPS_WORKFLOW_BUNDLE, else dist/workflow-bundle.js when present */
  workflowBundle?: string;
  /** Temporal Web UI base: test runs carry a link to their workflow. @default $DATAOPS_TEMPORAL_UI_URL, else none */
  temporalUiUrl?: string;
  /**
   * The longest time between two heartbeats that reach Temporal (80 % of an activity's heartbeat timeout when less).
   * @default $DATAOPS_HEARTBEAT_THROTTLE_MS, else 60000
   */
  heartbeatThrottleMs: number;
  /**
   * The task queue of the heartbeating waits (a job's whole wait holds a slot there, apart from short calls), told to
   * each workflow by its input check. @default $DATAOPS_WAITS_TASK_QUEUE, else `<TEMPORAL_TASK_QUEUE>-waits`
   */
  waitsTaskQueue: string;
  /** How long a held submission may still commit after sending (see ActivityDeps.submitSettleMs). */
  submitSettleMs: number;
  /**
   * After SIGTERM or SIGINT, how long activities in flight (an import, a submission) may finish before they are
   * cancelled. @default $DATAOPS_SHUTDOWN_GRACE_MS, else 30000
   */
  shutdownGraceMs: number;
  /** How much this worker takes on at once (see docs/operations.md, "N workers"). */
  capacity: WorkerCapacity;
  /**
   * The project's search attributes (table group, test suite, stage, verdict): `register` adds the missing ones to
   * the namespace at start, `require` refuses to start without them, `off` sets none.
   * @default $DATAOPS_SEARCH_ATTRIBUTES, else register
   */
  searchAttributes: 'register' | 'require' | 'off';
  /** OTLP tracing (src/config/telemetry.ts). @default off */
  tracing?: TracingConfig;
  /** OpenLineage events (src/config/lineage.ts). @default off */
  lineage: LineageConfig;
  /** Each job's page in the service's UI, by role (src/config/lineage.ts). @default none */
  jobLinks: JobLinks;
  /**
   * Worker Deployment Versioning: this worker's deployment and build id ($DATAOPS_DEPLOYMENT_NAME,
   * $DATAOPS_BUILD_ID, both or neither). Every workflow is PINNED (src/workflows/index.ts).
   * @default unversioned
   */
  deployment?: { deploymentName: string; buildId: string };
}

/**
 * The worker's slots, pollers and cache. Heartbeating waits hold an activity slot for their whole job: they run on
 * the waits task queue with slots of their own, so they never starve submissions and reads (the deferrable strategy
 * holds no slot between polls, and runs with the other activities).
 */
export interface WorkerCapacity {
  /** Slots for reads, imports, cancels, the submitters' batches. @default $DATAOPS_MAX_CONCURRENT_ACTIVITIES, else 200 */
  maxConcurrentActivities: number;
  /** Slots for heartbeating waits (the waits task queue). @default $DATAOPS_MAX_CONCURRENT_WAITS, else 2000 */
  maxConcurrentWaits: number;
  /** @default $DATAOPS_MAX_CONCURRENT_WORKFLOW_TASKS, else 100 */
  maxConcurrentWorkflowTasks: number;
  /** @default $DATAOPS_MAX_CONCURRENT_LOCAL_ACTIVITIES, else 100 */
  maxConcurrentLocalActivities: number;
  /**
   * Workflows kept in memory between tasks (about 375 KiB each); others replay when they next have work. A waiting
   * workflow has no task until its job ends, so it needs no place in the cache: 1000 holds as many active pipelines
   * without replays, and keeps 5,000 waiting ones under 1 GiB (`npm run bench:scale`).
   * @default $DATAOPS_MAX_CACHED_WORKFLOWS, else 1000
   */
  maxCachedWorkflows: number;
  /** @default $DATAOPS_WORKFLOW_POLLERS, else 4 */
  workflowPollers: number;
  /** @default $DATAOPS_ACTIVITY_POLLERS, else 4 */
  activityPollers: number;
}

/** The credential profiles alone, as the worker reads them (for `dataops auth`). */
export function loadWorkerProfiles(
  env: Env = processEnv(),
  read: ReadFile = readFromDisk,
): Record<string, ProfileConfig> {
  const problems = new Problems();
  const v = readEnv({ DATAOPS_PROFILES: workerEnv.DATAOPS_PROFILES }, env, problems);
  const profiles = readProfiles(v.DATAOPS_PROFILES, env, read, problems);
  problems.check();
  return profiles;
}

/**
 * Reads and validates the worker's configuration. Every problem is collected and reported at once, by key.
 */
export function loadWorkerConfig(env: Env = processEnv(), read: ReadFile = readFromDisk): WorkerConfig {
  const problems = new Problems();
  const temporal = readTemporalConfig(env, read, problems);
  const v = readEnv(workerEnv, env, problems);
  const tracing = readTracingConfig(env, problems, 'dataops-temporal-worker');
  const objectStore = readObjectStoreConfig(env, problems);
  const lineage = readLineageConfig(env, read, problems, temporal.namespace);
  const jobLinks = readJobLinks(env, problems);
  if (Boolean(env.DATAOPS_DEPLOYMENT_NAME) !== Boolean(env.DATAOPS_BUILD_ID))
    problems.add('DATAOPS_DEPLOYMENT_NAME and DATAOPS_BUILD_ID', 'set both (a versioned worker) or neither');

  const profiles = readProfiles(v.DATAOPS_PROFILES, env, read, problems);
  const waitsQueue = v.DATAOPS_WAITS_TASK_QUEUE ?? waitsTaskQueue(temporal.taskQueue);
  if (waitsQueue === temporal.taskQueue)
    problems.add(
      'DATAOPS_WAITS_TASK_QUEUE',
      `'${waitsQueue}' is the main task queue too: the waits need a queue of their own, which only their worker polls`,
    );
  problems.check();

  const paths = {
    ...(v.DATAOPS_JOB_STATUS_PATH ? { jobStatus: v.DATAOPS_JOB_STATUS_PATH } : {}),
    ...(v.DATAOPS_JOB_CANCEL_PATH ? { jobCancel: v.DATAOPS_JOB_CANCEL_PATH } : {}),
    ...(v.DATAOPS_JOB_LIST_PATH ? { jobList: v.DATAOPS_JOB_LIST_PATH } : {}),
  };
  return {
    temporal,
    service: {
      baseUrl: v.DATAOPS_BASE_URL,
      ...(v.DATAOPS_API_BASE_URL ? { apiBaseUrl: v.DATAOPS_API_BASE_URL } : {}),
      timeoutMs: v.DATAOPS_TIMEOUT_MS,
      tokenLifetimeMs: v.DATAOPS_TOKEN_LIFETIME_MS,
      paths,
      profiles,
      scoreScale: v.DATAOPS_SCORE_SCALE,
    },
    blobDir: v.DATAOPS_BLOB_DIR,
    ...(objectStore ? { objectStore } : {}),
    exportDir: v.DATAOPS_EXPORT_DIR,
    ...(v.DATAOPS_BLOB_RETENTION_DAYS ? { blobRetentionDays: v.DATAOPS_BLOB_RETENTION_DAYS } : {}),
    logLevel: v.LOG_LEVEL,
    logFormat: v.LOG_FORMAT,
    ...(v.METRICS_PROMETHEUS_ADDRESS ? { prometheusAddress: v.METRICS_PROMETHEUS_ADDRESS } : {}),
    ...(v.DATAOPS_WORKFLOW_BUNDLE ? { workflowBundle: v.DATAOPS_WORKFLOW_BUNDLE } : {}),
    ...(v.DATAOPS_TEMPORAL_UI_URL ? { temporalUiUrl: v.DATAOPS_TEMPORAL_UI_URL } : {}),
    heartbeatThrottleMs: v.DATAOPS_HEARTBEAT_THROTTLE_MS,
    waitsTaskQueue: waitsQueue,
    submitSettleMs: v.DATAOPS_SUBMIT_SETTLE_MS,
    shutdownGraceMs: v.DATAOPS_SHUTDOWN_GRACE_MS,
    searchAttributes: v.DATAOPS_SEARCH_ATTRIBUTES,
    ...(tracing ? { tracing } : {}),
    lineage,
    jobLinks,
    ...(v.DATAOPS_DEPLOYMENT_NAME && v.DATAOPS_BUILD_ID
      ? { deployment: { deploymentName: v.DATAOPS_DEPLOYMENT_NAME, buildId: v.DATAOPS_BUILD_ID } }
      : {}),
    capacity: {
      maxConcurrentActivities: v.DATAOPS_MAX_CONCURRENT_ACTIVITIES,
      maxConcurrentWaits: v.DATAOPS_MAX_CONCURRENT_WAITS,
      maxConcurrentWorkflowTasks: v.DATAOPS_MAX_CONCURRENT_WORKFLOW_TASKS,
      maxConcurrentLocalActivities: v.DATAOPS_MAX_CONCURRENT_LOCAL_ACTIVITIES,
      maxCachedWorkflows: v.DATAOPS_MAX_CACHED_WORKFLOWS,
      workflowPollers: v.DATAOPS_WORKFLOW_POLLERS,
      activityPollers: v.DATAOPS_ACTIVITY_POLLERS,
    },
  };
}

export {
  DEFAULT_HEARTBEAT_THROTTLE_MS,
  DEFAULT_MAX_CACHED_WORKFLOWS,
  type LogLevel,
  workerEnv,
} from './worker-settings.js';
export { describeConfig } from './describe-worker.js';
