/** Asking a target's submitter from a test, as a requesting activity asks it (src/exactly-once/through-submitter.ts). */
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { temporal } from '@temporalio/proto';
import { answerFrom, queueAt } from '../../src/exactly-once/through-submitter.js';
import { requestsQuery, type WriteAnswer, type WriteRequest } from '../../src/exactly-once/messages.js';
import type { DevAndSim } from './dev-and-sim.js';
import { simDeps, workflowsPath } from './activities.js';
import { withWorker } from './temporal.js';
import { eventually } from './wait.js';
import { HELD_CLIENT_TIMEOUT_MS, HOLD_AT_MOST_MS, faultHits } from './sim.js';

/**
 * Activity dependencies whose service client waits out a send held up to HOLD_AT_MOST_MS (the tests' own 5 s would
 * time it out, and the send would be looked for as one whose answer was lost).
 */
export const deps = (s: DevAndSim) => simDeps(s.sim, { timeoutMs: HELD_CLIENT_TIMEOUT_MS });

/** Jobs that stay pending: what a submitter sends is seen, never ended by the simulator. */
export const SLOW_JOBS = { pendingMs: 600_000, claimMs: 600_000, runMs: 6_000_000, cancelMs: 200, interruptMs: 200 };

/**
 * Queues `request` at submitter `submitterId` on `taskQueue` (starting it if need be), and waits for its answer by
 * reading where it stands, as a settle does (its requester is no activity the batch could complete).
 * `unanswered`, when given, collects every failure of the questions it asks (the queries). A request its submitter
 * does not know (answered withdrawn, or dropped) is queued again only while it is `wanted` and its requester's
 * workflow still runs with no cancel requested, as an ask's retry does (through-submitter.ts).
 */
export async function askSubmitter(
  client: Client,
  taskQueue: string,
  submitterId: string,
  request: WriteRequest,
  unanswered?: unknown[],
  wanted: () => boolean = () => true,
): Promise<WriteAnswer> {
  const requester = (request.input as { requester?: { workflowId: string; runId: string } }).requester;
  const stillWanted = async (): Promise<boolean> => {
    if (!wanted()) return false;
    if (!requester) return true;
    const d = await client.workflow.getHandle(requester.workflowId, requester.runId).describe();
    return d.status.name === 'RUNNING' && d.raw.workflowExtendedInfo?.cancelRequested !== true;
  };
  const submitter = { id: submitterId, taskQueue };
  await queueAt(client, submitter, request);
  const handle = client.workflow.getHandle(submitterId);
  const query = ((...args: Parameters<typeof handle.query>) =>
    handle.query(...args).catch((err: unknown) => {
      unanswered?.push(err);
      throw err;
    })) as typeof handle.query;
  return answerFrom({ ...handle, query }, request.id, async () => {
    if (!(await stillWanted())) return false;
    await queueAt(client, submitter, request);
    return true;
  });
}

/**
 * `n` requesting workflows of profiling runs on `target` (on a task queue nobody polls, so they stay running, named
 * `<name>-<i>-<taskQueue>`), and the request each makes as a submitting activity does.
 */
export async function profilingRequesters(client: Client, taskQueue: string, target: string, n: number, name: string) {
  const requesters = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      client.workflow.start('dataops.profileTableGroup', {
        taskQueue: `${taskQueue}-nobody`,
        workflowId: `${name}-${i}-${taskQueue}`,
        args: [{ tableGroupId: target }],
      }),
    ),
  );
  const requests: WriteRequest[] = requesters.map((w) => ({
    id: `${w.workflowId}/${w.firstExecutionRunId}/1`,
    activity: 'submitProfilingRun',
    input: {
      profile: 'default',
      targetId: target,
      requester: { workflowId: w.workflowId, runId: w.firstExecutionRunId, activityId: '1' },
    },
    outageToleranceMs: 600_000,
    askAgainUntil: Date.now() + 600_000,
  }));
  return { requesters, requests };
}

/** What a submitter did for requests queued behind one held send (queuingBehindOne). */
export interface QueuedBehind {
  /** The answers, in the order asked. */
  answers: WriteAnswer[];
  /** The profiling runs the simulator created meanwhile. */
  created: { id: string }[];
  /** The batches its latest run sent (its `sendInTurn` activities). */
  batches: number;
  /** The most updates its latest run held at once across workflow tasks (mostHeld). */
  held: number;
}

/**
 * A function that asks the submitter of `target` on `taskQueue` for `n` profiling runs, each for a requesting workflow
 * of its own (on a task queue nobody polls, so it stays running): the first alone, held by the simulator until the
 * rest have queued behind it. `whileHeld` adds faults once the first send is held.
 */
export function queuingBehindOne(s: DevAndSim) {
  const client = () => s.d.env.client;
  const profiling = (target: string) =>
    s.sim.controls.jobs().filter((j) => j.job_key === 'run-profile' && j.table_group_id === target);
  return async function queuedBehindOne(
    taskQueue: string,
    target: string,
    n: number,
    whileHeld: () => unknown = () => {},
  ): Promise<QueuedBehind> {
    const submitterId = `dataops-submit/${taskQueue}/default/profiling/${target}`;
    const { requesters, requests } = await profilingRequesters(client(), taskQueue, target, n, 'batch-requester');
    // Each queues its request and reads where it stands until it is answered.
    const ask = (r: WriteRequest): Promise<WriteAnswer> => askSubmitter(client(), taskQueue, submitterId, r);
    const before = new Set(profiling(target).map((j) => j.id));
    // Held until the rest have queued, however long a loaded machine takes to queue them (a fixed hold of 3 s was
    // once beaten, and the rest went in two batches); the hold's own end only unsticks a test that fails anyway.
    const held = s.sim.controls.addFault({
      kind: 'delay',
      delay_ms: HOLD_AT_MOST_MS,
      method: 'POST',
      path: `/table-groups/${target}/profiling-runs`,
    });
    const first = ask(requests[0]!);
    let rest: Promise<WriteAnswer>[];
    try {
      await eventually('the first send held', () => faultHits(s.sim, held) === 1);
      await whileHeld();
      rest = requests.slice(1).map(ask);
      await eventually('the rest queued behind it', async () => {
        const { queued } = await client().workflow.getHandle(submitterId).query(requestsQuery);
        return queued.length === n - 1;
      });
    } finally {
      s.sim.controls.releaseFault(held.id);
    }
    const answers = await Promise.all([first, ...rest]);
    const events = (await client().workflow.getHandle(submitterId).fetchHistory()).events ?? [];
    const batches = events.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'dataops.sendInTurn',
    ).length;
    await Promise.all(requesters.map((w) => w.terminate('done').catch(() => {}))); // some a test ended itself
    const created = profiling(target).filter((j) => !before.has(j.id));
    return { answers, created, batches, held: mostHeld(events) };
  };
}

/** The most updates a history shows held across workflow tasks at once (one replied to at once is not held). */
export function mostHeld(events: temporal.api.history.v1.IHistoryEvent[]): number {
  const open = new Set<string>();
  let most = 0;
  for (const e of events) {
    const accepted = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId;
    const completed = e.workflowExecutionUpdateCompletedEventAttributes?.meta?.updateId;
    if (accepted) open.add(accepted);
    if (completed) open.delete(completed);
    if (e.workflowTaskCompletedEventAttributes) most = Math.max(most, open.size);
  }
  return most;
}

/** The order the submitter tests ask for, by kitchen, recipe and variation. */
export const ASKED_ORDER = { kitchen: 'production', recipe: 'refresh-marts', variation: 'full' };

/**
 * ASKED_ORDER as a requester's request asks for it (`request`, from a profiling requester's: profilingRequesters), a
 * hold of its create by the simulator (`hold`), and the orders the simulator has (`created`).
 */
export const orderAsked = (s: DevAndSim) => ({
  request: (r: WriteRequest): WriteRequest => ({
    ...r,
    activity: 'runOrder',
    input: { profile: 'default', ...ASKED_ORDER, parameters: {}, requester: r.input.requester },
  }),
  hold: () =>
    s.sim.controls.addFault({
      kind: 'delay',
      delay_ms: HOLD_AT_MOST_MS,
      method: 'PUT',
      path: `/v2/order/create/${ASKED_ORDER.kitchen}/${ASKED_ORDER.recipe}/${ASKED_ORDER.variation}`,
    }),
  created: () => s.sim.controls.orders().map((o) => o.id),
});

/**
 * Runs `fn` with a submitter on a fresh queue of `env` holding one queued request (`wf/run/1`, a profiling run on
 * `target`) in a batch whose activity stalls: the test speaks for the batch's attempts (`sending`, `resume`). The
 * submitter is ended and the batch released afterwards, whatever `fn` did: a stalled batch would hold the worker's
 * shutdown.
 */
export async function withStalledBatch(
  env: TestWorkflowEnvironment,
  target: string,
  fn: (submitter: WorkflowHandle) => Promise<void>,
): Promise<void> {
  let batches = 0;
  let release = (): void => {};
  const sendInTurn = () => {
    batches++;
    return new Promise<[]>((resolve) => (release = () => resolve([])));
  };
  await withWorker(env, { workflowsPath, activities: { 'dataops.sendInTurn': sendInTurn } }, async (taskQueue) => {
    const id = `dataops-submit/${taskQueue}/default/profiling/${target}`;
    const request: WriteRequest = {
      id: 'wf/run/1',
      activity: 'submitProfilingRun',
      input: { profile: 'default', targetId: target },
      outageToleranceMs: 600_000,
      askAgainUntil: Date.now() + 600_000,
    };
    await queueAt(env.client, { id, taskQueue }, request);
    await eventually('the batch began', () => batches === 1);
    const submitter = env.client.workflow.getHandle(id);
    try {
      await fn(submitter);
    } finally {
      await submitter.terminate('done').catch(() => undefined);
      release();
    }
  });
}

/** Waits until a batch of submitter `submitterId` failed for good: its activity failed or timed out. */
export async function batchFailedForGood(client: Client, submitterId: string): Promise<void> {
  const submitter = client.workflow.getHandle(submitterId);
  await eventually(
    'the batch failed for good',
    async () =>
      ((await submitter.fetchHistory().catch(() => undefined))?.events ?? []).some(
        (e) => e.activityTaskFailedEventAttributes || e.activityTaskTimedOutEventAttributes,
      ) || undefined,
    { tries: 1_200, delayMs: 100 },
  );
}
