/**
 * The peer's stop: a process that moved to a session of its own and ignores SIGTERM survives a signal to the process
 * group and holds the test's pipe open (a CI run once hung there for 90 minutes after TestGen's last test passed).
 * reapMarkedProcesses finds it by the inherited marker and kills it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { test } from 'node:test';
import { markedProcesses, reapMarkedProcesses } from '../helpers/marked-processes.js';
import { eventually } from '../helpers/wait.js';

const MARKER = 'DATAOPS_TEST_MARKED';

// The root starts a grandchild in a new session that ignores SIGTERM and inherits the root's stdout, as TestGen's
// `run-app all` does with its modules; it prints the grandchild's pid, and exits on SIGTERM itself.
const root = `
  const { spawn } = require('node:child_process');
  const g = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], {
    detached: true, stdio: ['ignore', 'inherit', 'inherit'],
  });
  console.log(String(g.pid));
  process.on('SIGTERM', () => process.exit(0));
  setInterval(() => {}, 1000);
`;

test('a process in a session of its own that ignores SIGTERM is found by its marker and killed', async () => {
  const marker = randomUUID();
  const child = spawn(process.execPath, ['-e', root], {
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, [MARKER]: marker },
  });
  let printed = '';
  child.stdout.on('data', (d: Buffer) => (printed += d.toString()));
  const pipeClosed = once(child.stdout, 'close');
  const grandchild = await eventually('the grandchild pid', () => Number(printed.trim()) || undefined);
  await eventually('both marked', () => markedProcesses(MARKER, marker).length === 2 || undefined);

  assert.ok(child.pid);
  process.kill(-child.pid, 'SIGTERM');
  await once(child, 'exit');
  // The failure this guards against: the root is gone, the grandchild is not, and it still holds the pipe.
  assert.deepEqual(markedProcesses(MARKER, marker), [grandchild]);
  assert.equal(child.stdout.readableEnded, false, 'the pipe is still open while the grandchild lives');

  assert.deepEqual(await reapMarkedProcesses(MARKER, marker, 500), [grandchild]);
  assert.deepEqual(markedProcesses(MARKER, marker), []);
  await pipeClosed; // released: nothing keeps this test process alive
});

test('reaping when everything already stopped kills nothing', async () => {
  assert.deepEqual(await reapMarkedProcesses(MARKER, randomUUID(), 500), []);
});
