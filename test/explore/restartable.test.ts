/**
 * A restarted process keeps its port (the simulator between seeds, the dev server after a kill). Another socket may
 * hold that port for a moment, so a start that finds it taken is tried again instead of failing the seed or the run.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { Restartable } from '../helpers/matrix-world.js';
import { dist, freePort, startProcess } from '../helpers/processes.js';

test('a start that finds its port held for a moment is tried again, and comes up once the port is free', async () => {
  const port = await freePort();
  const holder = createServer();
  await new Promise<void>((r) => holder.listen(port, '127.0.0.1', r));
  const released = new Promise<void>((r) => setTimeout(() => holder.close(() => r()), 1_500));
  const sim = new Restartable(
    () => startProcess([dist('simulator/server.js'), '--port', String(port)], {}),
    (p) => p.output().includes('listening on'),
    'the simulator',
  );
  try {
    await sim.up();
    await released;
    const failed = await fetch(`http://127.0.0.1:${port}/health`).then(
      () => '',
      (e: Error) => e.message,
    );
    assert.equal(failed, '', 'the simulator answers on its port');
  } finally {
    await released;
    await sim.kill();
  }
});

test('a start that fails for another reason fails at once, with what the process said', async () => {
  const sim = new Restartable(
    () => startProcess([dist('simulator/server.js'), '--port', 'not-a-port'], {}),
    (p) => p.output().includes('listening on'),
    'the simulator',
  );
  await assert.rejects(sim.up(), /the simulator exited/);
});
