/**
 * A worker that dies after it sent, before the record of its send reached Temporal: its heartbeats are throttled to
 * 80 % of the timeout (its throttle bound raised, as on a worker whose DATAOPS_HEARTBEAT_THROTTLE_MS is long), and
 * the watermark listing is held past its first heartbeat, so the record waits out the throttle. The worker dies while
 * the service holds the POST, which then commits; another worker of the queue takes over.
 */
import type { World } from './matrix-world.js';
import { eventually } from './wait.js';

/** Runs `start` (a workflow on `queue`) on the worker that dies so, as its POST to `postPath` is held. */
export async function killedBeforeItsRecord<T>(
  w: World,
  queue: string,
  postPath: string,
  start: () => Promise<T>,
): Promise<T> {
  const slow = { DATAOPS_TIMEOUT_MS: '10000' };
  const victim = w.startWorker(queue, { ...slow, DATAOPS_HEARTBEAT_THROTTLE_MS: '60000' });
  await w.controls.addFault({ kind: 'delay', delay_ms: 6_000, method: 'GET', path: '/projects/DEMO/jobs', count: 1 });
  const post = await w.controls.addFault({ kind: 'delay', delay_ms: 4_000, method: 'POST', path: postPath, count: 1 });
  const started = await start();
  await eventually('the send held', async () => (await w.controls.hits(post.id)) === 1, {
    tries: 600,
    delayMs: 50,
  });
  await victim.stop('SIGKILL');
  w.startWorker(queue, slow);
  return started;
}
