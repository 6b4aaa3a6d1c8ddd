/**
 * What a seed does with its world, on fakes. A seed whose requester cannot start (the dev server refused it) fails
 * that seed only: its steps still run to their end and its workers stop before runSeed answers, so nothing of it
 * reaches the next seed's world, and no step's rejection ends the explorer. A freeze stops a worker's process and lets
 * it go on; every worker a seed started is stopped at its end.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { World } from '../helpers/matrix-world.js';
import type { Schedule } from './draw.js';
import proto from '@temporalio/proto';
import { retriedTaskEvents, runSeed } from './run-seed.js';

/** A world of fakes: `proc(n)` is the n-th worker it starts; `more` adds controls and a client. */
function fakeWorld(proc: (n: number) => unknown, more: { controls: Record<string, unknown>; client?: unknown }): World {
  let workers = 0;
  return {
    sim: { kill: async () => {}, up: async () => {} },
    controls: {
      url: 'http://127.0.0.1:1',
      jobDurations: async () => {},
      orderDurations: async () => {},
      ...more.controls,
    },
    client: more.client,
    startWorker: () => proc(workers++),
  } as unknown as World;
}

test('a requester that fails lets the seed’s steps settle and stops its workers before the seed ends', async () => {
  const events: string[] = [];
  const proc = (n: number) => ({
    output: () => `worker ${n}`,
    stop: async () => {
      events.push(`stop ${n}`);
      return null;
    },
  });
  const w = fakeWorld(proc, {
    controls: {
      addFault: async () => {
        await new Promise((r) => setTimeout(r, 200));
        events.push('fault armed');
      },
    },
    client: {
      workflow: {
        start: async () => {
          events.push('start refused');
          throw new Error('the dev server refused the start');
        },
      },
    },
  });
  const schedule: Schedule = {
    seed: 1,
    cells: 1,
    skewMs: 0,
    soleWriter: false,
    requesters: [
      { name: 'r0-profile', kind: 'profile', cell: 0, startAt: 0, waitStrategy: 'heartbeat', statusReports: 2 },
    ],
    steps: [{ at: 300, what: 'fault', fault: { kind: 'status', status: 503, method: 'POST', path: '/x' } }],
  };
  await assert.rejects(runSeed(w, schedule), /refused the start/);
  assert.deepEqual(events, ['start refused', 'fault armed', 'stop 0', 'stop 1']);
});

test('a freeze stops a worker’s process and lets it go on; a killed worker is left dead; every worker started is stopped', async () => {
  const signals: string[] = [];
  const proc = (n: number) => {
    const child = {
      exitCode: null as number | null,
      signalCode: null as string | null,
      kill: (signal: string) => void signals.push(`${signal} ${n}`),
    };
    return {
      child,
      output: () => `worker ${n}`,
      stop: async (signal = 'SIGTERM') => {
        if (child.signalCode === null) signals.push(`${signal} ${n}`);
        child.signalCode = signal;
        return null;
      },
    };
  };
  const w = fakeWorld(proc, {
    controls: { clearFaults: async () => {}, jobs: async () => [], orders: async () => [] },
  });
  /** The signals the seed's workers got, in order, in a seed of `steps` alone. */
  const signalsOf = async (seed: number, steps: Schedule['steps']) => {
    signals.length = 0;
    await runSeed(w, { seed, cells: 1, skewMs: 0, soleWriter: false, requesters: [], steps });
    return [...signals];
  };
  assert.deepEqual(await signalsOf(1, [{ at: 0, what: 'freeze', worker: 0, frozenMs: 100 }]), [
    'SIGSTOP 0',
    'SIGCONT 0',
    'SIGKILL 0',
    'SIGKILL 1',
  ]);
  const frozenThenKilled = await signalsOf(2, [
    { at: 0, what: 'freeze', worker: 1, frozenMs: 300 },
    { at: 100, what: 'kill', worker: 1, downMs: 0 },
  ]);
  assert.deepEqual(frozenThenKilled, ['SIGSTOP 3', 'SIGKILL 3', 'SIGKILL 2', 'SIGKILL 4'], 'no SIGCONT to a dead one');
  // Two kills of one worker that overlap (the second while it is down) start two workers: both are stopped at the end.
  const killedTwice = await signalsOf(3, [
    { at: 0, what: 'kill', worker: 0, downMs: 400 },
    { at: 100, what: 'kill', worker: 0, downMs: 0 },
  ]);
  assert.deepEqual(killedTwice, ['SIGKILL 5', 'SIGKILL 6', 'SIGKILL 7', 'SIGKILL 8'], 'no worker left running');
});

test('the events of workflow tasks that timed out or failed: 2 for one never started, 3 for one started', () => {
  const { EventType } = proto.temporal.api.enums.v1;
  // An event id is a Long in history; read as a number.
  const events = [
    { eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED },
    {
      eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
      workflowTaskTimedOutEventAttributes: {},
    },
    { eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED },
    { eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED },
    {
      eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
      workflowTaskTimedOutEventAttributes: { startedEventId: 4 as never },
    },
    { eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED },
    { eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED },
    {
      eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
      workflowTaskFailedEventAttributes: { startedEventId: 7 as never },
    },
    { eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED },
    { eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED },
    { eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED },
  ];
  assert.equal(retriedTaskEvents(events), 2 + 3 + 3);
  assert.equal(retriedTaskEvents(events.slice(-3)), 0);
});
