/**
 * A seed whose requester cannot start (the dev server refused it) fails that seed only: its steps still run to their
 * end and its workers stop before runSeed answers, so nothing of it reaches the next seed's world, and no step's
 * rejection ends the explorer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { World } from '../helpers/matrix-world.js';
import type { Schedule } from './draw.js';
import { runSeed } from './run-seed.js';

test('a requester that fails lets the seed’s steps settle and stops its workers before the seed ends', async () => {
  const events: string[] = [];
  const proc = (n: number) => ({
    output: () => `worker ${n}`,
    stop: async () => {
      events.push(`stop ${n}`);
      return null;
    },
  });
  let workers = 0;
  const w = {
    sim: { kill: async () => {}, up: async () => {} },
    controls: {
      url: 'http://127.0.0.1:1',
      jobDurations: async () => {},
      orderDurations: async () => {},
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
    startWorker: () => proc(workers++),
  } as unknown as World;
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
  let workers = 0;
  const w = {
    sim: { kill: async () => {}, up: async () => {} },
    controls: {
      url: 'http://127.0.0.1:1',
      jobDurations: async () => {},
      orderDurations: async () => {},
      clearFaults: async () => {},
      jobs: async () => [],
      orders: async () => [],
    },
    startWorker: () => proc(workers++),
  } as unknown as World;
  const base = { cells: 1, skewMs: 0, soleWriter: false, requesters: [] };
  await runSeed(w, { ...base, seed: 1, steps: [{ at: 0, what: 'freeze', worker: 0, frozenMs: 100 }] });
  assert.deepEqual(signals, ['SIGSTOP 0', 'SIGCONT 0', 'SIGKILL 0', 'SIGKILL 1']);
  signals.length = 0;
  await runSeed(w, {
    ...base,
    seed: 2,
    steps: [
      { at: 0, what: 'freeze', worker: 1, frozenMs: 300 },
      { at: 100, what: 'kill', worker: 1, downMs: 0 },
    ],
  });
  assert.deepEqual(signals, ['SIGSTOP 3', 'SIGKILL 3', 'SIGKILL 2', 'SIGKILL 4'], 'no SIGCONT to a killed worker');
  // Two kills of one worker that overlap (the second while it is down) start two workers: both are stopped at the end.
  signals.length = 0;
  await runSeed(w, {
    ...base,
    seed: 3,
    steps: [
      { at: 0, what: 'kill', worker: 0, downMs: 400 },
      { at: 100, what: 'kill', worker: 0, downMs: 0 },
    ],
  });
  assert.deepEqual(signals, ['SIGKILL 5', 'SIGKILL 6', 'SIGKILL 7', 'SIGKILL 8'], 'no worker left running');
});
