/**
 * The activity boundary: service errors become Temporal failures whose `type` is the error class name. Retryable ones
 * (5xx, 429 with Retry-After, connection failures, timeouts) retry; everything else fails at once.
 */
import { CancelledFailure, CompleteAsyncError } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import { RateLimited, RequestAborted, ServiceError, StrictImportRejected, UnexpectedResponse } from '../api/index.js';
import { invalidInputMessage, issueLines } from '../contract/issues.js';
import { heartbeating } from './heartbeats.js';
import { BlobCorrupt, BlobNotFound, BlobStoreRefused } from '../claim-check/errors.js';

/** Thrown when an activity input is invalid; the message lists every problem. */
export class InvalidInput extends Error {
  override readonly name = 'InvalidInput';
  constructor(
    message: string,
    readonly problems: string[] = [],
  ) {
    super(message);
  }
}

/** Thrown when a workflow names a credential profile the worker does not have. */
export class UnknownProfile extends Error {
  override readonly name = 'UnknownProfile';
}

/**
 * Thrown when a submission may or may not have created a job (the response was lost), and the job cannot be looked
 * up to find out (no project code configured, or several candidates). Never resubmitted blindly.
 */
export class SubmissionOutcomeUnknown extends Error {
  override readonly name = 'SubmissionOutcomeUnknown';
}

/**
 * Thrown when a lost answer's job may be among new jobs whose target cannot be told yet (TestGen names a profiling
 * run's table group only once the run starts), at the end of an attempt that has room for another: retryable, so the
 * next attempt goes on looking. Unknown is a state while it can still be found, not a failure.
 */
export class SubmissionOutcomePending extends Error {
  override readonly name = 'SubmissionOutcomePending';
}

/** Thrown when an order request may or may not have created an order; orders cannot be reconciled, so no retry. */
export class OrderOutcomeUnknown extends Error {
  override readonly name = 'OrderOutcomeUnknown';
}

/** Thrown when an apply's answer was lost and a fresh preview cannot tell whether (all of) it landed. */
export class ImportOutcomeUnknown extends Error {
  override readonly name = 'ImportOutcomeUnknown';
}

/** Parses an activity input with its schema; a bad input is a non-retryable InvalidInput listing every problem. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown, activity: string): z.infer<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = issueLines(parsed.error);
  throw toFailure(new InvalidInput(invalidInputMessage(`activity ${activity}`, problems), problems));
}

/** Safe details of a service error: status, code and where; never credentials. */
function details(err: ServiceError): Record<string, unknown> {
  return { status: err.status ?? null, code: err.code ?? null, method: err.method, url: err.url };
}

/**
 * Translates any error thrown inside an activity into what Temporal should see. Cancellation stays cancellation, and
 * an activity completed later by another (CompleteAsyncError) stays so.
 */
export function toFailure(err: unknown): Error {
  if (err instanceof ApplicationFailure || err instanceof CancelledFailure || err instanceof CompleteAsyncError)
    return err;
  if (err instanceof RequestAborted) return new CancelledFailure('activity cancelled: request aborted', [], err);
  if (err instanceof StrictImportRejected) {
    return ApplicationFailure.create({
      type: err.name,
      message: err.message,
      nonRetryable: true,
      details: [{ ...details(err), importResult: err.importResult }],
    });
  }
  if (err instanceof RateLimited) {
    return ApplicationFailure.create({
      type: err.name,
      message: err.message,
      nonRetryable: false,
      ...(err.retryAfterMs !== undefined ? { nextRetryDelay: Math.max(err.retryAfterMs, 1) } : {}),
      details: [{ ...details(err), retryAfterMs: err.retryAfterMs ?? null }],
    });
  }
  if (err instanceof UnexpectedResponse) {
    return ApplicationFailure.create({
      type: err.name,
      message: err.message,
      nonRetryable: true,
      details: [{ ...details(err), issues: err.issues }],
    });
  }
  if (err instanceof ServiceError) {
    return ApplicationFailure.create({
      type: err.name,
      message: err.message,
      nonRetryable: !err.retryable,
      details: [details(err)],
    });
  }
  if (err instanceof InvalidInput) {
    return ApplicationFailure.create({
      type: err.name,
      message: err.message,
      nonRetryable: true,
      details: [{ problems: err.problems }],
    });
  }
  if (
    err instanceof UnknownProfile ||
    err instanceof SubmissionOutcomeUnknown ||
    err instanceof OrderOutcomeUnknown ||
    err instanceof ImportOutcomeUnknown ||
    err instanceof BlobNotFound ||
    err instanceof BlobCorrupt ||
    err instanceof BlobStoreRefused
  ) {
    return ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: true });
  }
  if (err instanceof Error)
    return ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: false });
  return ApplicationFailure.create({ type: 'Error', message: String(err), nonRetryable: false });
}

/** Runs an activity body, heartbeating while its requests are in flight (heartbeats.ts), and translates what it throws. */
export async function translated<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await heartbeating(fn);
  } catch (err) {
    throw toFailure(err);
  }
}
