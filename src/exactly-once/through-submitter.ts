/**
 * Asking a target's submitter (src/exactly-once/workflow/submitter.ts) to send a write, from the activity that would
 * otherwise send it. The ask queues its request by signal-with-start under its own id and ends its attempt without a
 * result (asynchronous completion): the submitter's batch (send-in-turn.ts) completes it with the answer once the
 * submitter has recorded that answer, so an ask holds no slot and sends no heartbeat while it waits its turn. An
 * attempt that was not completed (its request dropped, its worker gone before it queued, the completion lost) times
 * out, and the next attempt reads where its request stands: it takes the answer, or queues the request again, never
 * a second send. A workflow's cancel settles its ask's request itself (`settleAsk`): withdrawn if still queued, else its
 * answer heard.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { activityInfo, CancelledFailure, CompleteAsyncError, Context, log } from '@temporalio/activity';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { z } from 'zod';
import {
  SUBMITTER_WORKFLOW_TYPE,
  placeQuery,
  requestIdOf,
  submitSignal,
  withdrawSignal,
  WITHDRAWN_UNSENT,
  type Place,
  type Requester,
  type WriteAnswer,
  type WriteFailure,
  type WriteRequest,
} from './messages.js';
import { DEFAULT_OUTAGE_TOLERANCE_MS } from '../contract/activity-options.js';
import { beatingWhile } from '../activities/heartbeats.js';
import { stillWanted } from './requester-gone.js';
import { traceCarrier } from '../activities/request-trace.js';
import { parseInput, translated } from '../activities/errors.js';
import type { SendFor } from './send-in-turn.js';

/** This activity (or activity `activityId` of its workflow), as the submitter names its requester. */
export function requester(activityId = activityInfo().activityId): Requester {
  const own = activityInfo().workflowExecution;
  return { workflowId: own?.workflowId ?? '-', runId: own?.runId ?? '-', activityId };
}

/** How long after its last try a request may still be asked about: by the settle of an ask that ended unanswered. */
const LOOKUP_ROOM_MS = 30 * 60_000;

/**
 * Until when this request may be asked about again: this activity's schedule-to-close (else its current attempt's
 * start-to-close), and the room for the settle its workflow makes when it ended unanswered.
 */
function askAgainUntil(): number {
  const info = activityInfo();
  const end = info.scheduleToCloseTimeoutMs
    ? info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs
    : info.currentAttemptScheduledTimestampMs + info.startToCloseTimeoutMs;
  return end + LOOKUP_ROOM_MS;
}

/** The failure a write ended with, as its requester ends with it. */
export const failureFrom = (failure: WriteFailure): ApplicationFailure =>
  ApplicationFailure.create({
    message: failure.message,
    type: failure.type ?? undefined,
    nonRetryable: failure.nonRetryable,
    details: failure.details,
  });

/** What the write created (undefined: withdrawn, nothing sent); the failure it ended with is thrown. */
function resultOf<T>(answer: WriteAnswer): T | undefined {
  if ('withdrawn' in answer) return undefined;
  if ('failure' in answer) throw failureFrom(answer.failure);
  return answer.result as T;
}

/**
 * Ends the ask of `requester` with `answer`, once its submitter recorded it: completed with the write's result, failed
 * with its failure, or, withdrawn, cancelled (accepted only when its workflow asked for the cancel). One that cannot
 * be ended so (it ended already, or its attempt timed out, or its workflow is gone) is left: its retry, if any, reads
 * the recorded answer.
 */
export function tell(requester: Requester | undefined, answer: WriteAnswer): Promise<void> {
  if (!requester) return Promise.resolve();
  const { activity } = Context.current().client;
  const told =
    'result' in answer
      ? activity.complete(requester, answer.result)
      : 'failure' in answer
        ? activity.fail(requester, failureFrom(answer.failure))
        : activity.reportCancellation(requester, WITHDRAWN_UNSENT);
  return told.catch(() => undefined);
}

/** Queues `request` at its target's submitter, starting the submitter if none runs; known requests stay as they are. */
export function queueAt(client: Client, submitter: { id: string; taskQueue: string }, request: WriteRequest) {
  return client.workflow.signalWithStart(SUBMITTER_WORKFLOW_TYPE, {
    workflowId: submitter.id,
    taskQueue: submitter.taskQueue,
    args: [{}],
    signal: submitSignal,
    signalArgs: [request],
  });
}

/** How long a submitter retries a request through an outage: what the requesting activity's own retries would. */
export const outageToleranceOf = (): number => activityInfo().scheduleToCloseTimeoutMs || DEFAULT_OUTAGE_TOLERANCE_MS;

/**
 * The submitter an activity's request goes to, on `submitterQueue` (its workflow's task queue), @default this
 * activity's: `own`, that task queue's for its deployment and target.
 */
export function submitterFor(
  named: { submitterQueue?: string | undefined },
  own: (taskQueue: string) => string,
): { id: string; taskQueue: string } {
  const taskQueue = named.submitterQueue ?? activityInfo().taskQueue;
  return { id: own(taskQueue), taskQueue };
}

/**
 * Whether Temporal could not answer a question (a query) now, and asking again later may: the workflow's tasks cannot
 * keep up with its queries (the history service buffers only a few per execution while a workflow task runs), or no
 * worker took the query before its deadline (a new submitter whose first task waits in a busy queue, a restarting
 * worker). A worker's own connection may end the call first ("Timeout expired", or its HTTP/2 stream reset under load).
 */
export const unansweredNow = (err: unknown): boolean => {
  for (let e: unknown = err; e instanceof Error; e = e.cause)
    if (
      /query buffer is full|query timed out before a worker could process it|^timeout expired$|^h2 protocol error/i.test(
        e.message,
      )
    )
      return true;
  return false;
};

/** Where request `id` stands at `handle`'s submitter; none running is unknown. A question refused now is asked again. */
async function placeAt(handle: WorkflowHandle, id: string): Promise<Place> {
  for (let refused = 0; ; refused++) {
    try {
      return await beatingWhile(handle.query(placeQuery, id));
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return { unknown: true };
      if (!unansweredNow(err)) {
        if (await ended(handle)) return { unknown: true };
        throw err;
      }
      await beatingWhile(delay(Math.min(1_000 * 2 ** refused, 10_000) * (0.5 + Math.random())));
    }
  }
}

/** Whether the submitter ended: it keeps nothing then (it ends only when no requester may ask again). */
async function ended(handle: WorkflowHandle): Promise<boolean> {
  const status = await handle.describe().then(
    (d) => d.status.name,
    () => undefined,
  );
  return status !== undefined && status !== 'RUNNING';
}

/**
 * Has the submitter `submitter.id` (on `submitter.taskQueue`, where it starts if none runs) send `input` with
 * activity `activity` for this activity, which its batch completes with what it created or the failure it ended
 * with. A retry reads where the request stands: answered, it returns or throws that answer; queued or being sent, it
 * waits again; unknown (dropped, never queued), it queues it again while its workflow still wants it, and else ends
 * cancelled: withdrawn, nothing was sent.
 */
export async function throughSubmitter<T>(
  submitter: { id: string; taskQueue: string },
  activity: string,
  input: Record<string, unknown>,
  outageToleranceMs: number,
): Promise<T> {
  const { client } = Context.current();
  const me = requester();
  const id = requestIdOf(me);
  if (activityInfo().attempt > 1) {
    const place = await placeAt(client.workflow.getHandle(submitter.id), id);
    if ('queued' in place) throw new CompleteAsyncError();
    if ('withdrawn' in place || ('unknown' in place && !(await stillWanted(me)))) throw withdrawnUnsent();
    if (!('unknown' in place)) return resultOf<T>(place) as T;
  }
  const request: WriteRequest = {
    id,
    activity,
    input: { ...input, requester: me },
    outageToleranceMs,
    askAgainUntil: askAgainUntil(),
    trace: traceCarrier(),
  };
  await beatingWhile(queueAt(client, submitter, request));
  throw new CompleteAsyncError();
}

/** Said unsent: every attempt asked under the same request, which no one sent. */
export const withdrawnUnsent = (): CancelledFailure =>
  new CancelledFailure('withdrawn while it waited its turn: nothing was sent', [WITHDRAWN_UNSENT]);

/**
 * The answer submitter `handle` gives request `id`, read until it has one (a send in flight is waited for, asked
 * about more slowly as it lasts); `unknown` decides what a request unknown to it becomes (false: withdrawn).
 */
export async function answerFrom(
  handle: WorkflowHandle,
  id: string,
  unknown: () => Promise<boolean>,
): Promise<WriteAnswer> {
  for (let asked = 0; ; asked++) {
    const place = await placeAt(handle, id);
    if ('unknown' in place) {
      if (!(await unknown())) return { withdrawn: true };
    } else if (!('queued' in place)) return place;
    await beatingWhile(delay(Math.min(250 * 1.25 ** asked, 2_000)));
  }
}

/**
 * What submitter `submitterId` answered the request of activity `activityId` of this workflow (an ask that ended
 * unanswered, or whose workflow was cancelled), waiting for it if it is being sent; undefined when it sent nothing
 * for it: never asked, withdrawn now while it waited its turn, or refused. No submitter running: nothing of it is kept.
 * The ask, if it still runs, is ended with that answer first, so its workflow leaves no activity in flight.
 */
async function answerOf<T>(submitterId: string, activityId: string): Promise<T | undefined> {
  const requestId = requestIdOf(requester(activityId));
  const handle = Context.current().client.workflow.getHandle(submitterId);
  try {
    await beatingWhile(handle.signal(withdrawSignal, requestId));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError || (await ended(handle))) return undefined;
    throw err;
  }
  const answer = await answerFrom(handle, requestId, async () => false);
  await beatingWhile(tell(requester(activityId), answer));
  return resultOf<T>(answer);
}

/** The submitter a write's request goes to, from the input its ask was given. */
export type SubmitterOf = (request: unknown) => { id: string; taskQueue: string };

/**
 * A kind of write that asks a submitter, as each registers it under its asking activity's name: how a batch sends its
 * requests (send-in-turn.ts), and which submitter they go to (`settleAsk`).
 */
export interface Write {
  send: SendFor;
  submitterOf: SubmitterOf;
}

const SettleInput = z.object({
  /** The asking activity's type (`submitProfilingRun`, `runOrder`, `importTestDefinitions`, …) and its id. */
  activity: z.string().min(1),
  activityId: z.string().min(1),
  /** The input the ask was given: it names the submitter. */
  request: z.record(z.string(), z.unknown()),
});
export type SettleInput = z.input<typeof SettleInput>;

/**
 * `settleAsk`: what the request of an ask created, settled now, whether or not that ask still runs: its workflow was
 * cancelled, or it ended unanswered (its worker died, and none of its attempts will run again). One still queued is
 * withdrawn (null: nothing was sent, nor will be); one being sent is waited for, so that its workflow cancels what it
 * created rather than leave it running with nobody watching. `writes`: where each asking activity's requests go.
 */
export function settleAskActivity(writes: Record<string, Pick<Write, 'submitterOf'>>) {
  return async function settleAsk(raw: SettleInput): Promise<{ answer: unknown }> {
    const input = parseInput(SettleInput, raw, 'settleAsk');
    const submitterOf = writes[input.activity]?.submitterOf;
    if (!submitterOf)
      throw ApplicationFailure.create({
        message: `no activity ${input.activity} asks a submitter`,
        nonRetryable: true,
      });
    return translated(async () => {
      const answer = await answerOf(submitterOf(input.request).id, input.activityId);
      if (answer !== undefined) log.warn('an unanswered ask had been sent', { activity: input.activity });
      return { answer: answer ?? null };
    });
  };
}
