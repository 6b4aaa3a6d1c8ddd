/** The real worker (`createWorker`) configured for a TestGen peer as an operator would, on a task queue of its own. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWorkerConfig } from '../../src/config/worker.js';
import { createWorker } from '../../src/worker.js';
import { uniqueTaskQueue, type TestEnv } from './temporal.js';
import { testGenService, type OAuthGrant, type TestGenPeer } from './testgen.js';

export type PeerWorker = Awaited<ReturnType<typeof createWorker>> & {
  taskQueue: string;
  /** A directory of its own (its claim checks, exports). */
  work: string;
  stop(): Promise<void>;
};

/**
 * Starts the worker for `peer` with `grant` (no /v2 login, an OAuth refresh grant, scores as fractions), heartbeats
 * every 0.5 s, and `env` for anything else; `stop()` shuts it down and closes what it opened.
 */
export async function startPeerWorker(
  t: TestEnv,
  peer: TestGenPeer,
  grant: OAuthGrant,
  env: (work: string) => Record<string, string> = () => ({}),
): Promise<PeerWorker> {
  const taskQueue = uniqueTaskQueue('peer');
  const work = mkdtempSync(join(tmpdir(), 'peer-worker-'));
  const config = loadWorkerConfig({
    TEMPORAL_ADDRESS: t.env.connection.options.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    ...testGenService(peer, grant),
    DATAOPS_BLOB_DIR: join(work, 'blobs'),
    DATAOPS_EXPORT_DIR: join(work, 'exports'),
    DATAOPS_HEARTBEAT_THROTTLE_MS: '500',
    ...env(work),
  });
  const worker = await createWorker(config, t.env.nativeConnection);
  const running = worker.worker.run();
  return {
    ...worker,
    taskQueue,
    work,
    stop: async () => {
      worker.worker.shutdown();
      await running;
      await worker.deps.close();
    },
  };
}
