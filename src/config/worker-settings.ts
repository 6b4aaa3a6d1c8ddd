/**
 * The worker's own variables, each declared with its type, default and what it does (docs/reference/settings.md is
 * generated from them); src/config/worker.ts reads them beside the Temporal connection, the profiles, storage and
 * lineage.
 */
import { join } from 'node:path';
import { doc, hostPort, httpUrl, int, oneOf, orDefault, pathTemplate, text, textOr } from './env.js';
import { SCORE_SCALES } from '../vocabulary.js';

/**
 * The longest time between two heartbeats of an activity that reach Temporal, when DATAOPS_HEARTBEAT_THROTTLE_MS is
 * not set: the SDK's own bound, so heartbeats go at 80 % of each activity's heartbeat timeout (a dead worker is still
 * seen within that timeout). Each one is a write on the server, a billed action on Temporal Cloud: a wait with a
 * 1-minute timeout sends 75 an hour, not the 720 of a 5 s throttle. A workflow's cancel waits for no heartbeat (it
 * cancels the job it knows, and settles a request at once); what a shorter throttle buys is livelier poll counts in
 * `--follow`.
 */
export const DEFAULT_HEARTBEAT_THROTTLE_MS = 60_000;

/**
 * How long a workflow task waits on the queue of the worker that has the workflow cached before any worker may take it
 * (the SDK's default is 10 s). A worker killed without a word (SIGKILL, a lost node) leaves its workflows' next tasks
 * there: a cancel would reach such a workflow, and its job, only after this. A live worker takes its own within it.
 */
export const STICKY_TIMEOUT_MS = 1_000;

/** The worker's cache of workflows when DATAOPS_MAX_CACHED_WORKFLOWS is not set (see WorkerCapacity). */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 1_000;

export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const HOUR = 3_600_000;

/** The worker's own variables (the Temporal connection, the profiles, storage and lineage are read beside them). */
export const workerEnv = {
  DATAOPS_BASE_URL: doc(
    orDefault(httpUrl(), 'http://127.0.0.1:8700'),
    'The service; its `/v2` calls go below it. The default is the local simulator.',
  ),
  DATAOPS_API_BASE_URL: doc(httpUrl(), 'Base of the `/api/v1` calls, where a deployment serves them elsewhere.', {
    default: 'DATAOPS_BASE_URL',
  }),
  DATAOPS_PROFILES: doc(
    textOr('default'),
    'The credential profiles, comma-separated; a workflow names one (`profile`). Each reads the profile variables below.',
  ),
  DATAOPS_SCORE_SCALE: doc(
    oneOf(SCORE_SCALES, 'fraction'),
    'How the deployment reports `result.score`: `fraction` (0–1, TestGen 5.134) or `percent`. Outputs always say `scorePercent`.',
  ),
  DATAOPS_TIMEOUT_MS: doc(
    int({ fallback: 30_000, min: 1, max: 600_000 }),
    'Timeout of each request to the service, in ms.',
  ),
  DATAOPS_TOKEN_LIFETIME_MS: doc(
    int({ fallback: 4 * HOUR, min: 60_000, max: 30 * 24 * HOUR }),
    'Lifetime of a `/v2` session; it is renewed 5 minutes before it ends, and once after a 401.',
  ),
  DATAOPS_SUBMIT_SETTLE_MS: doc(
    int({ fallback: 60_000, min: 0, max: 20 * 60_000 }),
    "How long a submission whose answer was lost may still commit; it is looked up again after this before any resend. Set it above the service's request timeout (on TestGen, also above the time its scheduler takes to start a run).",
  ),
  DATAOPS_JOB_STATUS_PATH: doc(pathTemplate('{job_id}'), 'The job status call, which the spec leaves unshown.', {
    default: '`/api/v1/jobs/{job_id}`',
  }),
  DATAOPS_JOB_CANCEL_PATH: doc(pathTemplate('{job_id}'), 'The job cancel call.', {
    default: '`/api/v1/jobs/{job_id}/cancel`',
  }),
  DATAOPS_JOB_LIST_PATH: doc(
    pathTemplate('{project_code}'),
    "A project's job listing, where lost submissions are looked up.",
    { default: '`/api/v1/projects/{project_code}/jobs`' },
  ),
  DATAOPS_BLOB_DIR: doc(
    textOr(join('.dataops', 'blobs')),
    'The local claim-check store (every worker must share it); with `DATAOPS_BLOB_STORE=s3`, where `local:` references written before the move are read.',
  ),
  DATAOPS_EXPORT_DIR: doc(textOr(join('.dataops', 'exports')), 'Where `exportTestDefinitions` writes its files.'),
  // 0 is refused, not read as unset: a retention of no days would be taken for none at all (blobs kept forever).
  DATAOPS_BLOB_RETENTION_DAYS: doc(
    int({ fallback: 0, min: 1, max: 3650 }),
    'Claim checks not written (nor, locally, read) for this many days are removed: locally at start and daily, on S3 by a lifecycle rule the worker sets on its prefix. A promotion whose approval may wait longer is refused.',
    { default: 'kept forever' },
  ),
  LOG_LEVEL: doc(oneOf(LOG_LEVELS, 'INFO', true), "The worker's log level, the SDK Core's included."),
  LOG_FORMAT: doc(
    oneOf(['pretty', 'json'], 'pretty'),
    "`json`: one JSON object a line, the SDK Core's logs included (`sdkComponent: core`).",
  ),
  METRICS_PROMETHEUS_ADDRESS: doc(
    hostPort(),
    "Serves the SDK's Prometheus metrics and ours there, e.g. `0.0.0.0:9464`.",
    { default: 'off' },
  ),
  DATAOPS_WORKFLOW_BUNDLE: doc(text(), 'A prebuilt workflow bundle.', {
    default: '`dist/workflow-bundle.js` when present',
  }),
  DATAOPS_TEMPORAL_UI_URL: doc(
    httpUrl(),
    "Temporal's Web UI: test runs and the CLI link to their workflow there. The CLI reads it too.",
    { default: 'none (the CLI: `http://localhost:8233` for a local server)' },
  ),
  DATAOPS_WAITS_TASK_QUEUE: doc(
    text(),
    'The task queue of the heartbeating job waits, which hold a slot for a whole job. It must differ from `TEMPORAL_TASK_QUEUE`; while renaming it, serve both until the runs started before have ended.',
    { default: '`<TEMPORAL_TASK_QUEUE>-waits`' },
  ),
  DATAOPS_HEARTBEAT_THROTTLE_MS: doc(
    int({ fallback: DEFAULT_HEARTBEAT_THROTTLE_MS, min: 100, max: 10 * 60_000 }),
    "The longest time between two heartbeats that reach Temporal (80 % of an activity's heartbeat timeout when less). Each is a server write, a billed action on Temporal Cloud; a cancel does not wait for one.",
  ),
  DATAOPS_SHUTDOWN_GRACE_MS: doc(
    int({ fallback: 30_000, min: 0, max: HOUR }),
    'After SIGTERM or SIGINT, how long activities in flight (an import, a submission) may finish before they are cancelled.',
  ),
  DATAOPS_SEARCH_ATTRIBUTES: doc(
    oneOf(['register', 'require', 'off'], 'register'),
    "The project's search attributes: `register` the missing ones at start, `require` them, or set none (`off`). The CLI reads it too: unless `off`, its starts set each run's first ones.",
  ),
  DATAOPS_DEPLOYMENT_NAME: doc(
    text(),
    "Worker Deployment Versioning: this worker's deployment (with `DATAOPS_BUILD_ID`). Every workflow is PINNED.",
    { default: 'unversioned' },
  ),
  DATAOPS_BUILD_ID: doc(text(), "This worker's build id (with `DATAOPS_DEPLOYMENT_NAME`).", { default: 'unversioned' }),
  DATAOPS_MAX_CONCURRENT_ACTIVITIES: doc(
    int({ fallback: 200, min: 1, max: 100_000 }),
    "Activity slots on the task queue: reads, imports, cancels, the submitters' batches.",
  ),
  DATAOPS_MAX_CONCURRENT_WAITS: doc(
    int({ fallback: 2_000, min: 1, max: 1_000_000 }),
    'Activity slots on the waits task queue: each heartbeating wait holds one for its whole job.',
  ),
  DATAOPS_MAX_CONCURRENT_WORKFLOW_TASKS: doc(int({ fallback: 100, min: 2, max: 10_000 }), 'Workflow task slots.'),
  DATAOPS_MAX_CONCURRENT_LOCAL_ACTIVITIES: doc(
    int({ fallback: 100, min: 1, max: 10_000 }),
    'Local activity slots (the input check).',
  ),
  DATAOPS_MAX_CACHED_WORKFLOWS: doc(
    int({ fallback: DEFAULT_MAX_CACHED_WORKFLOWS, min: 0, max: 1_000_000 }),
    'Workflows kept in memory between their tasks (about 375 KiB each); the others replay when they next have work. A waiting workflow needs no place.',
  ),
  DATAOPS_WORKFLOW_POLLERS: doc(int({ fallback: 4, min: 2, max: 100 }), 'Concurrent workflow task long polls.'),
  DATAOPS_ACTIVITY_POLLERS: doc(int({ fallback: 4, min: 1, max: 100 }), 'Concurrent activity task long polls.'),
};
