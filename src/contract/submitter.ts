/**
 * What a requester and a target's submitter (src/workflows/submitter.ts) say to each other: a write request, its
 * answer, and the messages that carry them. Pure, so the workflows and the activities can both import it.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

/** The submitter's workflow type: one execution per target, its id the target's (`dataops-submit/…`, `dataops-order/…`). */
export const SUBMITTER_WORKFLOW_TYPE = 'dataops.submitter';

/** One write for the submitter to send, on behalf of one activity of one workflow. */
export interface WriteRequest {
  /**
   * `<workflowId>/<runId>/<activityId>` of the requesting activity: the same across its attempts, so a retry attaches
   * to its request (or gets its answer) instead of sending again.
   */
  id: string;
  /** The activity that sends it, by its own name: a job kind's submit activity, or `runOrder`. */
  activity: string;
  /** That activity's input: the requester's, without the target's id, with the requester named. */
  input: Record<string, unknown>;
  /** How long the sending activity retries through an outage (the requester's own tolerance). */
  outageToleranceMs: number;
  /** Until when (epoch ms) the requester may ask again: its answer is kept that long. */
  askAgainUntil: number;
  /** Only its answer, if it was asked before: an unknown request is answered `withdrawn`, and nothing is sent. */
  ifKnown?: boolean;
}

/** Who asked: the sending activity names it in its links and undoes what it created when that workflow is gone. */
export interface Requester {
  workflowId: string;
  runId: string;
  activityId: string;
}

/**
 * A request's id, the same across the requesting activity's attempts: `<workflowId>/<runId>/<activityId>`. It is also
 * the submission id a test run carries in its metadata.
 */
export const requestIdOf = (r: Requester): string => `${r.workflowId}/${r.runId}/${r.activityId}`;

/** A failure, as the sending activity ended with it. */
export interface WriteFailure {
  message: string;
  type: string | null;
  nonRetryable: boolean;
}

/** The answer: what the write created, how it failed, or that it was withdrawn before it was sent. */
export type WriteAnswer = { result: unknown } | { failure: WriteFailure } | { withdrawn: true };

export const submitUpdate = defineUpdate<WriteAnswer, [WriteRequest]>('submit');
/** The requester no longer wants it: removed if still queued (nothing sent); one being sent is answered as usual. */
export const withdrawSignal = defineSignal<[string]>('withdraw');

/** The requests a submitter holds: the one being sent, and those waiting their turn, in order (ids). */
export const requestsQuery = defineQuery<{ sending: string | null; queued: string[] }>('requests');

/** The jobs a submitter created since a time (epoch ms), as far as it keeps their answers. */
export const recentJobsQuery = defineQuery<string[], [number]>('recentJobs');

/**
 * A send's record, made durable on its submitter before the request leaves: when it left and what was there before
 * (the watermark). Its next attempt reads it back (`sendOf`) if its own heartbeat did not reach Temporal, so a lost
 * answer is never looked for without its watermark.
 */
export const sentSignal = defineSignal<[string, { sentAt: number; mark: unknown }]>('sent');
export const sendOfQuery = defineQuery<{ sentAt: number; mark: unknown } | null, [string]>('sendOf');

/** The type of the refusal a submitter gives new requests while it makes room to continue as new. */
export const SUBMITTER_CONTINUING = 'SubmitterContinuing';
