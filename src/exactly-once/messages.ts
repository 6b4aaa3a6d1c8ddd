/**
 * What a requester and a target's submitter (src/exactly-once/workflow/submitter.ts) say to each other: a write request, its
 * answer, and the messages that carry them. Pure, so the workflows and the activities can both import it.
 */
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { JobKind } from '../contract/job-kinds.js';
import type { Activities } from '../activities/index.js';

/** The submitter's workflow type: one execution per target, its id the target's (`dataops-submit/…`, `dataops-order/…`). */
export const SUBMITTER_WORKFLOW_TYPE = 'dataops.submitter';

/**
 * The service deployment a write goes to, as its submitter's id names it: the host, port and path of the base URL
 * its call is made under (no scheme, no user or password, no query). Every credential profile that writes to one
 * deployment's target so takes turns at one submitter. The account is left out: a bearer names none without a call,
 * and leaving it out serialises more, never less.
 */
export function deploymentOf(baseUrl: string): string {
  const url = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#]*)([^?#]*)/i.exec(baseUrl.trim());
  if (!url) return baseUrl.trim().replace(/\/+$/, '');
  return `${url[1]!.toLowerCase()}${url[2]!.replace(/\/+$/, '')}`;
}

/** The deployments a worker's writes go to (deploymentOf): its jobs' (the `/api/v1` base) and its orders' (`/v2`). */
export interface Deployments {
  jobs: string;
  orders: string;
}

/** The Deployments of a service at `baseUrl`, whose `/api/v1` calls go to `apiBaseUrl` (@default baseUrl). */
export const deploymentsOf = (baseUrl: string, apiBaseUrl?: string): Deployments => ({
  jobs: deploymentOf(apiBaseUrl ?? baseUrl),
  orders: deploymentOf(baseUrl),
});

/**
 * The id of a target's submitter: one per task queue (the requesting workflows', where it runs and sends), service
 * deployment (deploymentOf the `/api/v1` base), kind of job and target. The CLI derives it too, to say why a run
 * waits in `submitting …`.
 */
export const submitterId = (taskQueue: string, deployment: string, kind: JobKind, targetId: string): string =>
  `dataops-submit/${taskQueue}/${deployment}/${kind}/${targetId}`;

/** The id of the submitter of an order's kitchen, recipe and variation (deploymentOf the base URL; see submitterId). */
export const orderSubmitterId = (
  taskQueue: string,
  deployment: string,
  o: { kitchen: string; recipe: string; variation: string },
): string => `dataops-order/${taskQueue}/${deployment}/${o.kitchen}/${o.recipe}/${o.variation}`;

/** The id of the submitter of a test suite's applies (deploymentOf the `/api/v1` base; see submitterId). */
export const applySubmitterId = (taskQueue: string, deployment: string, testSuiteId: string): string =>
  `dataops-apply/${taskQueue}/${deployment}/${testSuiteId}`;

/** The activity an import's apply is sent with: it keeps the import's timeouts, and is sent through its workflow's cancel. */
export const APPLY_ACTIVITY = 'importTestDefinitions' satisfies keyof Activities;

/** One write for the submitter to send, on behalf of one activity of one workflow. */
export interface WriteRequest {
  /**
   * `<workflowId>/<runId>/<activityId>` of the requesting activity: the same across its attempts, so a retry attaches
   * to its request (or gets its answer) instead of sending again.
   */
  id: string;
  /** The activity that sends it, by its own name: a job kind's submit activity, `runOrder` or `importTestDefinitions`. */
  activity: string;
  /** That activity's input: the requester's, without the target's id, with the requester named. */
  input: Record<string, unknown>;
  /** How long the sending activity retries through an outage (the requester's own tolerance). */
  outageToleranceMs: number;
  /** Until when (epoch ms) the requester may ask again: its answer is kept that long. */
  askAgainUntil: number;

  /** The requesting activity's trace context (W3C `traceparent`, `tracestate`) when tracing is on: sent in it. */
  trace?: Record<string, string> | undefined;
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
  /** Its details (a refusal's status and URL, an import's would-be result), as the sending activity gave them. */
  details?: unknown[] | undefined;
}

/** The answer: what the write created, how it failed, or that it was withdrawn before it was sent. */
export type WriteAnswer = { result: unknown } | { failure: WriteFailure } | { withdrawn: true };

/**
 * Where a request stands: its answer; its place in line (how many are to be sent before it, none when it is being
 * sent); or unknown to the submitter (never queued, or withdrawn).
 */
export type Place = WriteAnswer | { queued: number } | { unknown: true };

/**
 * Queues a request, unless the submitter knows it already (queued, being sent, or answered): a requester sends it by
 * signal-with-start, and again when its retry finds it unknown. A signal, not an update: Temporal admits only
 * 10 updates in flight per workflow, and a target may have a thousand requesters at once.
 */
export const submitSignal = defineSignal<[WriteRequest]>('submit');
/** Where request `id` stands: read by an ask's retry, and by a settle until the request is answered. */
export const placeQuery = defineQuery<Place, [string]>('place');
/** The requester no longer wants it: removed if still queued (nothing sent); one being sent is answered as usual. */
export const withdrawSignal = defineSignal<[string]>('withdraw');
/**
 * The detail of the cancellation a first attempt's ask ends with when its request was withdrawn unsent: its workflow
 * knows nothing was sent, and looks nothing up (an ask that ended without saying so is settled with its submitter).
 */
export const WITHDRAWN_UNSENT = 'withdrawn-unsent';

/** The requests a submitter holds: those being sent (one batch, in order), and those waiting their turn (ids). */
export const requestsQuery = defineQuery<{ sending: string[]; queued: string[] }>('requests');

/** The jobs a submitter answered its requests with, as far as it keeps their answers: never a later send's. */
export const recentJobsQuery = defineQuery<string[]>('recentJobs');

/** A send's record: when it left, and what was there before it (the watermark its lookup compares with). */
export interface SendRecord {
  sentAt: number;
  mark: unknown;
}

/**
 * A batch's progress (src/exactly-once/send-in-turn.ts), made durable on its submitter before the next request leaves:
 * the answers of the requests before it (`answered`), and the record of the send about to leave (`sending`). A retry of
 * the batch reads them back: a request with an answer is done, one with a record may have been sent (its lookup
 * starts from that watermark), one with neither was never sent. A lost answer is then never looked for without its
 * watermark, and the jobs of earlier requests, known to the submitter, are never taken for it.
 */
export interface SendProgress {
  answered?: [string, WriteAnswer][] | undefined;
  sending?: [string, SendRecord] | undefined;
}
/** Which batch (its number in the submitter's run; absent from a batch of an earlier version) and which attempt. */
export interface BatchAttempt {
  batch?: number | undefined;
  attempt: number;
}
/**
 * Whether the send a batch is about to make may leave: `go` (recorded), `withdrawn` (its requester withdrew it while
 * it waited in the batch: answered so, never sent), `stale` (a later attempt of the batch took over, or the batch is
 * over: this attempt stops, and sends nothing more).
 */
export type SendVerdict = 'go' | 'withdrawn' | 'stale';
/** Records a batch's progress before its next send, and answers whether that send may leave (SendVerdict). */
export const sendingUpdate = defineUpdate<SendVerdict, [SendProgress & BatchAttempt]>('sending');
/**
 * A retried batch taking over: the requests of the batch that have no answer yet, in order, each with its send's
 * record if it has one. From then on an earlier attempt's sends are refused (`stale`); an earlier attempt asking
 * after a later one gets nothing to send.
 */
export const resumeUpdate = defineUpdate<Turn[], [BatchAttempt]>('resume');
/**
 * The answer a batch carries to the submitter when no send of it will (its last, or one before a failure): recorded
 * before its requester is told (send-in-turn.ts).
 */
export const sentSignal = defineSignal<[SendProgress]>('sent');

/** One request of a batch as the submitter hands it to its sending activity, with its send's record if it has one. */
export interface Turn {
  id: string;
  input: Record<string, unknown>;
  sending?: SendRecord | undefined;
  /** Its requester's trace context (WriteRequest.trace). */
  trace?: Record<string, string> | undefined;
}

/** The input of the activity that sends a batch (`sendInTurn`). */
export interface SendInTurnInput {
  /** The activity each request is sent with, by its own name: a job kind's submit activity, or `runOrder`. */
  activity: string;
  requests: Turn[];
  submitterId: string;
  submitterRunId: string;
  /** The batch's number in the submitter's run (BatchAttempt). */
  batch?: number | undefined;
}

/** The failure an activity ended with, as its requester rethrows it. */
export function failureOf(err: unknown): WriteFailure {
  const cause = err instanceof ActivityFailure ? (err.cause ?? err) : err;
  if (cause instanceof ApplicationFailure) {
    const details = cause.details?.length ? { details: [...cause.details] } : {};
    return { message: cause.message, type: cause.type ?? null, nonRetryable: cause.nonRetryable ?? false, ...details };
  }
  return { message: cause instanceof Error ? cause.message : String(cause), type: null, nonRetryable: false };
}

/** The request a batch's failure is about, when the failure names it (`details[0].request`). */
export function failedRequestOf(err: unknown): string | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const named =
    cause instanceof ApplicationFailure ? (cause.details?.[0] as { request?: unknown } | undefined) : undefined;
  return typeof named?.request === 'string' ? named.request : undefined;
}
