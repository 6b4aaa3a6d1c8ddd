/**
 * What a failed workflow or update tells a person: the failure at the root of the chain (the ApplicationFailure an
 * activity or child threw, not "ActivityFailure: Activity task failed"), where it came from, and whether a retry
 * could help.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  ChildWorkflowFailure,
  TerminatedFailure,
  TimeoutFailure,
} from '@temporalio/common';

export interface RootCause {
  /** The failure type: an ApplicationFailure's `type`, `Cancelled`, `Terminated`, or `Timeout (<kind>)`. */
  type: string;
  message: string;
  /** The chain above the root, outermost first, e.g. `activity submitProfilingRun`, `child dataops-submit/…`. */
  via: string[];
  /** As the failure says; null where it does not. */
  nonRetryable: boolean | null;
  /** An ApplicationFailure's details (e.g. the pipeline result of QualityGateFailed). */
  details: unknown[] | null;
  cancelled: boolean;
}

/** Walks `cause` from a client error (WorkflowFailedError, WorkflowUpdateFailedError) down to the root. */
export function rootCause(err: unknown): RootCause {
  const via: string[] = [];
  let at: unknown = err instanceof Error && err.cause ? err.cause : err;
  for (;;) {
    if (at instanceof ActivityFailure && at.cause) via.push(`activity ${at.activityType}`);
    else if (at instanceof ChildWorkflowFailure && at.cause) via.push(`child ${at.execution.workflowId}`);
    else break;
    at = at.cause;
  }
  const e = at instanceof Error ? at : new Error(String(at));
  const base = { message: e.message, via, details: null, nonRetryable: null, cancelled: false };
  if (e instanceof ApplicationFailure)
    return { ...base, type: e.type ?? 'Error', nonRetryable: e.nonRetryable ?? null, details: e.details ?? null };
  if (e instanceof CancelledFailure) return { ...base, type: 'Cancelled', cancelled: true };
  if (e instanceof TerminatedFailure) return { ...base, type: 'Terminated' };
  if (e instanceof TimeoutFailure)
    return { ...base, type: `Timeout (${(e.timeoutType ?? 'unknown').toLowerCase().replace(/_/g, ' ')})` };
  return { ...base, type: e.name || 'Error' };
}

/** One line: `<type>: <message> (via activity x; retryable: false)`. */
export function describeRoot(r: RootCause): string {
  const notes = [
    ...(r.via.length ? [`via ${r.via.join(' → ')}`] : []),
    ...(r.nonRetryable === null ? [] : [`retryable: ${String(!r.nonRetryable)}`]),
  ];
  return `${r.type}: ${r.message}${notes.length ? ` (${notes.join('; ')})` : ''}`;
}
