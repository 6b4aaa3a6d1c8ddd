/**
 * The process around a worker of the scale benchmark's own (the floor's, the bound's): the SDK's runtime quiet but for
 * errors, a connection, the worker with the benchmark's activity slots and the project's cache, a line that says it
 * polls, and a clean shutdown on SIGTERM.
 */
import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';

/** Runs a worker on `address` with `options` until SIGTERM; `name` goes in its ready line (`<name> worker ready`). */
export async function runBenchWorker(
  name: string,
  address: string,
  options: Omit<WorkerOptions, 'connection'>,
): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({ connection, maxConcurrentActivityTaskExecutions: 4_000, ...options });
  process.once('SIGTERM', () => worker.shutdown());
  console.log(`${name} worker ready`);
  try {
    await worker.run();
  } finally {
    await connection.close();
  }
}
