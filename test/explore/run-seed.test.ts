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
