/**
 * The servers a fault-matrix world and the scale benchmark start (test/helpers/matrix-world.ts, `Restartable`): one
 * that exits before it is ready fails its start at once, saying what it printed, instead of being polled until the
 * hang guard gives up (a benchmark once sat 11 minutes on a dev server that was gone). The simulator's start, TestGen's
 * and the object store's check the same way (`failIfExited`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import type { SeedInput } from '../../src/simulator/index.js';
import { Restartable, startWorld } from '../helpers/matrix-world.js';
import { freePorts, startProcess, startSimulatorProcess } from '../helpers/processes.js';

test('a process that exits before it is ready fails its start at once, with its output', async () => {
  let asked = 0;
  const server = new Restartable(
    () => startProcess(['-e', 'console.error("address already in use"); process.exit(3)'], {}),
    () => (asked++, false),
    'the test server',
  );
  await assert.rejects(server.up(), /the test server exited \(3\) before it was ready: address already in use/);
  assert.ok(asked < 1_200, `asked ${asked} times: stopped once it had exited`);
});

test('a simulator that exits at its start fails it at once, with what it said', async () => {
  await assert.rejects(
    startSimulatorProcess({ SIM_SEED_FILE: '/nonexistent/seed.json' }),
    /the simulator exited \(\d+\) before it was ready: .*nonexistent/s,
  );
});

test('a world whose simulator cannot start fails, and leaves no dev server behind to keep the tests running', async () => {
  const children = () =>
    execFileSync('ps', ['-o', 'args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes('start-dev'));
  // A seed the simulator refuses: it exits at its start, while the dev server beside it is starting or up.
  await assert.rejects(startWorld({ nonsense: true } as unknown as SeedInput), /the simulator exited/);
  assert.deepEqual(children(), [], 'the dev server started for the world is stopped');
});

test('ports asked for together are all different', async () => {
  const ports = await freePorts(20);
  assert.equal(new Set(ports).size, 20, ports.join(', '));
});
