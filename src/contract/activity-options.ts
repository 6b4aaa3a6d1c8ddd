/**
 * The recommended timeouts, heartbeat timeouts and retry policies of every activity: one set, used by all workflows.
 * Failure types listed in NON_RETRYABLE fail at once; everything else retries with backoff (Retry-After honoured).
 */
import type { ActivityOptions, LocalActivityOptions, RetryPolicy } from '@temporalio/common';
import { JOB_KINDS } from './job-kinds.js';
import { NAME_PREFIX } from './names.js';

/** The failures of a write that may have created something it could not find: they name what to look at. */
export const OUTCOME_UNKNOWN = ['SubmissionOutcomeUnknown', 'OrderOutcomeUnknown', 'ImportOutcomeUnknown'] as const;

/** Failure types (error class names) that retrying cannot fix. */
export const NON_RETRYABLE = [
  'InvalidInput',
  'UnknownProfile',
  'AuthenticationFailed',
  'PermissionDenied',
  'NotFound',
  'Conflict',
  'InvalidRequest',
  'StrictImportRejected',
  'UnexpectedResponse',
  ...OUTCOME_UNKNOWN,
  'BlobNotFound',
  'BlobCorrupt',
  'BlobStoreRefused',
] as const;

/** Failure types that retrying may fix. */
export const RETRYABLE = [
  'ServerError',
  'RateLimited',
  'ConnectionFailed',
  'RequestTimedOut',
  'GarbledResponse',
  'FreshTokenRefused',
  'NotSentInTime',
  'JobStillRunning',
  'BlobStoreUnavailable',
] as const;

/** A retry policy; `maximumAttempts: 'unlimited'` leaves the key out (the SDK wants a positive number or nothing). */
const retry = (
  overrides: Omit<RetryPolicy, 'maximumAttempts'> & { maximumAttempts?: number | 'unlimited' } = {},
): RetryPolicy => {
  const { maximumAttempts = 10, ...rest } = overrides;
  return {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    ...(maximumAttempts === 'unlimited' ? {} : { maximumAttempts }),
    nonRetryableErrorTypes: [...NON_RETRYABLE],
    ...rest,
  };
};

/**
 * How long the service may be unreachable before a workflow gives up on a call: every call below keeps retrying
 * (backoff up to a minute) for this long. Workflows wait for days, so an outage of minutes must never fail them.
 * Callers set it per workflow as `outageToleranceMs`.
 */
export const DEFAULT_OUTAGE_TOLERANCE_MS = 6 * 3_600_000;

/**
 * How many status changes each job's wait reports to its workflow by default (`statusReports`): the job starting to
 * work. Each report costs 4 history events. The same default for the contract, the wait activities (waits scheduled
 * by workflows from before the bound carry none) and the workflow's own view of them.
 */
export const DEFAULT_STATUS_REPORTS = 1;

/**
 * `cancelTimeoutMs` when not given: how long a workflow that ends while its job runs keeps trying to cancel it (or to
 * see its order's runs stopped). runOrder inputs recorded before runOrder took the field carry none.
 */
export const DEFAULT_CANCEL_TIMEOUT_MS = 5 * 60_000;
/** How long a job's or an order run's wait goes on by default (`maxWaitMs`): a week. */
export const DEFAULT_MAX_WAIT_MS = 7 * 24 * 3_600_000;

/** Retried through an outage of up to `toleranceMs`; the non-retryable types still fail at once. */
const throughOutage = (toleranceMs: number): Pick<ActivityOptions, 'scheduleToCloseTimeout' | 'retry'> => ({
  scheduleToCloseTimeout: toleranceMs,
  retry: retry({ maximumAttempts: 'unlimited' }),
});

/**
 * Short, idempotent calls: get, cancel, summaries, lookups, a request's settle. They heartbeat while they wait (every
 * activity does, see src/activities/heartbeats.ts), so a worker that dies mid-call is noticed after 5 seconds, not
 * after the start-to-close timeout: a cancel or a settle that met a dying worker goes on seconds later, not 20 s. Few
 * wait long enough to beat more for it: a settle (after a cancel, or an ask that ended unanswered) waits only for a
 * send already in flight.
 */
export const callsWithin = (toleranceMs: number = DEFAULT_OUTAGE_TOLERANCE_MS): ActivityOptions => ({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '5 seconds',
  ...throughOutage(toleranceMs),
});
export const CALL: ActivityOptions = callsWithin();

/**
 * Submissions and order creation: not idempotent on the service, so every retry reconciles first (looks for what an
 * earlier attempt may have created, after waiting out the time a held request can still commit) and only then sends.
 * The start-to-close leaves room for that wait (the worker's DATAOPS_SUBMIT_SETTLE_MS).
 */
export const submissionsWithin = (toleranceMs: number = DEFAULT_OUTAGE_TOLERANCE_MS): ActivityOptions => ({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '20 seconds',
  ...throughOutage(toleranceMs),
});
/**
 * An ask of a target's submitter (src/exactly-once/through-submitter.ts): it queues its request and is completed by the
 * batch that sends it, so it neither heartbeats nor holds a slot while it waits. An attempt not completed within a
 * minute (its request dropped, its worker gone before it queued it, the completion lost) is retried, and the retry
 * reads where its request stands.
 */
export const asksWithin = (toleranceMs: number = DEFAULT_OUTAGE_TOLERANCE_MS): ActivityOptions => ({
  startToCloseTimeout: '1 minute',
  ...throughOutage(toleranceMs),
});
export const SUBMIT: ActivityOptions = submissionsWithin();
export const ORDER: ActivityOptions = submissionsWithin();

/**
 * Heartbeating waits (short polls, strategy `heartbeat`): a crashed worker is detected by the heartbeat timeout and
 * the next attempt carries on from the heartbeat details. The poll interval must stay well below the heartbeat timeout.
 */
export const WAIT: ActivityOptions = {
  startToCloseTimeout: '7 days',
  heartbeatTimeout: '1 minute',
  retry: retry({ maximumAttempts: 'unlimited', maximumInterval: '30 seconds' }),
};

/**
 * Long, infrequent polls (strategy `deferrable`): one poll per attempt, the retry policy is the timer, and no activity
 * slot is held between polls. `initialInterval` is the first poll interval; the backoff stretches it to the maximum.
 */
export function deferredPolling(pollIntervalMs: number, maxPollIntervalMs: number, maxWaitMs: number): ActivityOptions {
  return {
    startToCloseTimeout: '1 minute',
    scheduleToCloseTimeout: maxWaitMs,
    retry: {
      initialInterval: pollIntervalMs,
      backoffCoefficient: 1.5,
      maximumInterval: maxPollIntervalMs,
      nonRetryableErrorTypes: [...NON_RETRYABLE],
    },
  };
}

/** Heartbeating waits bounded by `maxWaitMs`. */
export function heartbeatWaiting(maxWaitMs: number, heartbeatTimeoutMs = 60_000): ActivityOptions {
  return {
    ...WAIT,
    startToCloseTimeout: maxWaitMs,
    scheduleToCloseTimeout: maxWaitMs,
    heartbeatTimeout: heartbeatTimeoutMs,
  };
}

/**
 * Export and import: one large request each, heartbeating while it runs, so a dead worker is noticed in 30 seconds
 * while a large import on a live one may take its time. An apply reconciles before any retry (re-preview).
 */
export const transfersWithin = (toleranceMs: number = DEFAULT_OUTAGE_TOLERANCE_MS): ActivityOptions => ({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '30 seconds',
  ...throughOutage(toleranceMs),
});
export const TRANSFER: ActivityOptions = transfersWithin();

/**
 * The workflows' input check (local activity `checkWorkflowInput`): it runs inside the first workflow task and is
 * recorded as one marker. A refusal (`InvalidInput`) is final; anything else is the worker's own trouble and retries.
 */
/** Lineage's local activity: it only queues events, so a few quick tries; a failure is logged, never the workflow's. */
export const LINEAGE_EMIT: LocalActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: retry({ maximumAttempts: 3 }),
};

export const INPUT_CHECK: LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: retry({ maximumAttempts: 5, nonRetryableErrorTypes: ['InvalidInput'] }),
};

/**
 * The task queue of the heartbeating waits: `<task queue>-waits`. Each such wait holds an activity slot for its whole
 * job, so they poll a queue of their own, with their own slots, and never take the slots that submissions, summaries
 * and imports need. A worker for the workflows' task queue must also serve this one (ours does).
 */
export const waitsTaskQueue = (taskQueue: string): string => `${taskQueue}-waits`;

/**
 * The activities the workflows send to the waits task queue (as registered): what a worker there must register. The
 * asks of a target's submitter (submissions, order creations, applies) go there too; each ends its attempt once its
 * request is queued (asksWithin), so it holds no slot while it waits its turn.
 */
export const WAITS_QUEUE_ACTIVITIES: readonly string[] = [
  'dataops.waitForJob',
  'dataops.waitForOrderRun',
  // Every job kind's submission (a new kind is served there without another line), and an order's creation.
  ...Object.values(JOB_KINDS).map((k) => NAME_PREFIX + k.activity),
  'dataops.runOrder',
  // An import: its apply waits its turn at its suite's submitter (a preview answers at once).
  'dataops.importTestDefinitions',
];

/** The part of an activity set (as registered: createActivities) that serves the waits task queue. */
export function waitsQueueActivities<A extends object>(activities: A): Partial<A> {
  return Object.fromEntries(
    Object.entries(activities).filter(([name]) => WAITS_QUEUE_ACTIVITIES.some((w) => w === name)),
  ) as Partial<A>;
}
