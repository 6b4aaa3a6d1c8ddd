/**
 * The recommended timeouts, heartbeat timeouts and retry policies of every activity: one set, used by all workflows.
 * Failure types listed in NON_RETRYABLE fail at once; everything else retries with backoff (Retry-After honoured).
 */
import type { ActivityOptions, RetryPolicy } from '@temporalio/common';

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
  'SubmissionOutcomeUnknown',
  'OrderOutcomeUnknown',
  'BlobNotFound',
] as const;

/** Failure types that retrying may fix. */
export const RETRYABLE = [
  'ServerError',
  'RateLimited',
  'ConnectionFailed',
  'RequestTimedOut',
  'JobStillRunning',
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

/** Short calls: login, get, cancel, summaries. */
export const CALL: ActivityOptions = { startToCloseTimeout: '1 minute', retry: retry() };

/** Submissions: retries reconcile through the job listing before they submit again. */
export const SUBMIT: ActivityOptions = { startToCloseTimeout: '1 minute', retry: retry({ maximumAttempts: 8 }) };

/** Orders: an ambiguous failure is not retried (OrderOutcomeUnknown), since orders cannot be reconciled. */
export const ORDER: ActivityOptions = { startToCloseTimeout: '1 minute', retry: retry({ maximumAttempts: 5 }) };

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

/** Export and import: one large request each. */
export const TRANSFER: ActivityOptions = {
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '2 minutes',
  retry: retry({ maximumAttempts: 5 }),
};
