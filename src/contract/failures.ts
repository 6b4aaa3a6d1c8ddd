/**
 * Every failure type a caller can see, where it sits in the failure chain, and whether a retry could help: the
 * catalogue behind docs/contract.md, written to contract/failures.json for callers in other languages. A test holds
 * it to the code: every type the workflows, activities and the service client raise is listed here, and no other.
 */

/**
 * Where the `ApplicationFailure` of that type sits:
 * - `workflow`: the cause of the failed workflow (`WorkflowFailedError → ApplicationFailure`);
 * - `activity`: one level deeper (`WorkflowFailedError → ActivityFailure → ApplicationFailure`);
 * - `update`: the cause of a refused update (`WorkflowUpdateFailedError → ApplicationFailure`).
 * Through Nexus, each sits one level under the caller's `NexusOperationFailure`.
 */
export type FailureLocation = 'workflow' | 'activity' | 'update';

export interface FailureType<T extends string = string> {
  type: T;
  at: FailureLocation;
  /** The failure's own nonRetryable flag, inverted; a workflow's failure is final either way. */
  retryable: boolean;
  meaning: string;
}

const f = <const T extends string>(
  type: T,
  at: FailureLocation,
  retryable: boolean,
  meaning: string,
): FailureType<T> => ({
  type,
  at,
  retryable,
  meaning,
});

export const FAILURE_TYPES = [
  f('InvalidInput', 'workflow', false, 'the input breaks its schema; details[0].problems lists every problem'),
  f('QualityGateFailed', 'workflow', false, 'a quality gate failed (onGateFailure: fail); details[0] is the result'),
  f(
    'SearchAttributesMissing',
    'workflow',
    false,
    'the namespace lacks the search attributes the workflows set and the worker could not register them; the message names them and the fix (dataops setup search-attributes, or DATAOPS_SEARCH_ATTRIBUTES=off)',
  ),
  f('JobFailed', 'workflow', false, "the remote job ended in error; the message carries the job's error_message"),
  f('JobCanceled', 'workflow', false, 'the remote job was canceled by someone else'),
  f('JobStuck', 'workflow', false, 'a job held one status longer than maxStatusDurationMs (onStatusStuck: fail)'),
  f(
    'JobWaitTimedOut',
    'workflow',
    false,
    "a job's or an order run's wait ran out of maxWaitMs; the job was cancelled (unless cancelRemoteJob is false), the order stopped; the cause is what the wait last saw",
  ),
  f(
    'RemoteCancelUnconfirmed',
    'workflow',
    false,
    'cancelled, or failed (for its cause), and a job was not confirmed canceled, or the order not stopped or its runs not seen stopped: it may still run; details[0].leftRunning names every job of the workflow not seen terminal',
  ),
  f('OrderFailed', 'workflow', false, "the pipeline's order run did not complete; nothing was profiled or tested"),
  f('GenerationJobNotFound', 'workflow', false, 'testGeneration: wait, and no generation job followed profiling'),
  f('StrictImportRejected', 'workflow', false, 'apply_strict refused the import; nothing was applied'),
  f('PreviewNotReady', 'update', false, 'approve or reject before the preview exists'),
  f('AlreadyDecided', 'update', false, 'the promotion was already approved, rejected or timed out'),
  f('StalePreview', 'update', false, 'the approval names another preview than the current one'),
  f('InvalidInput', 'update', false, 'the update argument breaks its schema'),
  f('InvalidInput', 'activity', false, 'an activity input breaks its schema (a caller of the activities directly)'),
  f('AuthenticationFailed', 'activity', false, 'the service refused the credentials or token'),
  f(
    'FreshTokenRefused',
    'activity',
    true,
    'a 401 to a token granted for that very call: the grant works, so it is retried like an outage (after outageToleranceMs)',
  ),
  f('PermissionDenied', 'activity', false, "the profile's user may not do this"),
  f('NotFound', 'activity', false, 'the table group, suite, job or order does not exist (or is not visible)'),
  f('Conflict', 'activity', false, 'the service refused a change that conflicts with the current state'),
  f('InvalidRequest', 'activity', false, 'the service refused the request as invalid'),
  f('UnexpectedResponse', 'activity', false, 'a valid JSON answer that breaks its schema'),
  f(
    'SubmissionOutcomeUnknown',
    'activity',
    false,
    "a submission answer was lost and its job could not be found, or not told from another caller's (named)",
  ),
  f(
    'SubmissionOutcomePending',
    'activity',
    true,
    "a lost submission answer's job is among new jobs whose target the service does not tell yet: looked for again",
  ),
  f(
    'RequesterGone',
    'activity',
    false,
    "internal: a target's submitter undid what it created for a workflow that is gone (terminated, timed out); no caller sees it",
  ),
  f(
    'OrderOutcomeUnknown',
    'activity',
    false,
    "an order-create answer was lost and its order could not be found, or not told from another's (named)",
  ),
  f('ImportOutcomeUnknown', 'activity', false, 'an apply answer was lost and a fresh preview cannot tell if it landed'),
  f('UnknownProfile', 'activity', false, 'the input names a credential profile the worker does not have'),
  f('BlobNotFound', 'activity', false, 'a claim-check reference names no stored file (another host, or removed)'),
  f('BlobCorrupt', 'activity', false, 'a stored file does not match its hash'),
  f('BlobStoreRefused', 'activity', false, 'the object store refused: credentials, permissions, or no such bucket'),
  f('BlobStoreUnavailable', 'activity', true, 'the object store failed: 5xx, throttling, the network'),
  f('ServerError', 'activity', true, 'the service answered 5xx (after outageToleranceMs)'),
  f('RateLimited', 'activity', true, 'the service answered 429 (after outageToleranceMs)'),
  f('ConnectionFailed', 'activity', true, 'the service could not be reached (after outageToleranceMs)'),
  f('RequestTimedOut', 'activity', true, 'the service did not answer in time (after outageToleranceMs)'),
  f('GarbledResponse', 'activity', true, 'an answer that is not JSON (after outageToleranceMs)'),
  f('NotSentInTime', 'activity', true, 'a write its stalled worker could no longer send in time: unsent, retried'),
  f('Error', 'activity', true, 'an unexpected error in our own code (a defect: please report it); retried as a blip'),
] as const;

/** The name of a failure type of the catalogue: what a caller matches `ApplicationFailure.type` against. */
export type FailureTypeName = (typeof FAILURE_TYPES)[number]['type'];

/** Each failure type by its name, as a constant: `FAILURES.JobFailed === 'JobFailed'`. */
export const FAILURES = Object.fromEntries(FAILURE_TYPES.map((t) => [t.type, t.type])) as {
  readonly [K in FailureTypeName]: K;
};

/** A failure (an `ApplicationFailure`, or anything with its `type`) of the catalogue's type `K`. */
export type DataopsFailure<K extends FailureTypeName = FailureTypeName> = Error & { type: K };

const typeOf = (err: unknown): unknown =>
  typeof err === 'object' && err !== null ? (err as { type?: unknown }).type : undefined;

/** Whether `err` itself is a failure of type `type` (the `ApplicationFailure` of a failed workflow is its `cause`). */
export function isFailure<K extends FailureTypeName>(err: unknown, type: K): err is DataopsFailure<K> {
  return err instanceof Error && typeOf(err) === type;
}

/**
 * The failure of type `type` in `err`'s cause chain (`WorkflowFailedError → ApplicationFailure`, or one level deeper
 * through an `ActivityFailure` or a Nexus operation), or undefined.
 */
export function failureOf<K extends FailureTypeName>(err: unknown, type: K): DataopsFailure<K> | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++)
    if (isFailure(e, type)) return e;
  return undefined;
}

/** A type guard per failure type: `FAILURE_GUARDS.JobFailed(err)` is `isFailure(err, 'JobFailed')`. */
export const FAILURE_GUARDS = Object.fromEntries(
  FAILURE_TYPES.map((t) => [t.type, (err: unknown) => isFailure(err, t.type)]),
) as { readonly [K in FailureTypeName]: (err: unknown) => err is DataopsFailure<K> };
