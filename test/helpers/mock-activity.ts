/** Running an activity function in the SDK's mock activity environment, its logger quiet but for errors. */
import type { Client } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';

export const quiet = { logger: new DefaultLogger('ERROR') };

/** Runs `fn` in `env` (one with an attempt or heartbeat details of its own). */
export function runIn<A extends unknown[], R>(
  env: MockActivityEnvironment,
  fn: (...args: A) => Promise<R>,
  ...args: A
): Promise<R> {
  return env.run<A, R, typeof fn>(fn, ...args);
}

/**
 * Runs `fn` in `env`, cancels it once `asked` resolves (it is waiting on a call that never answers), and returns how it
 * ended: `'completed'`, or what it threw.
 */
export async function endingOnceCancelled(
  env: MockActivityEnvironment,
  fn: () => Promise<unknown>,
  asked: Promise<void>,
): Promise<unknown> {
  const ended = runIn(env, fn).then(
    () => 'completed',
    (err: unknown) => err,
  );
  await asked;
  env.cancel();
  return ended;
}

/** Runs `fn` as a first attempt. */
export function run<A extends unknown[], R>(fn: (...args: A) => Promise<R>, ...args: A): Promise<R> {
  return runIn(new MockActivityEnvironment(undefined, quiet), fn, ...args);
}

/**
 * A Temporal client for an activity whose only Temporal call is a signal (a status report, a batch's record of a
 * send): it takes every signal, to any workflow, and keeps its argument in `signals`.
 */
export function signalTaker(): { client: Client; signals: unknown[] } {
  const signals: unknown[] = [];
  const handle = {
    signal: async (_: unknown, arg: unknown) => void signals.push(arg),
    // The batch's record before each send (sendingUpdate): taken, and the send may go.
    executeUpdate: async (_: unknown, { args }: { args: unknown[] }) => (signals.push(args[0]), 'go'),
  };
  const client = { workflow: { getHandle: () => handle }, withAbortSignal: <R>(_: AbortSignal, fn: () => R) => fn() };
  return { client: client as unknown as Client, signals };
}

/**
 * The environment a target's submitter's batch sends in (src/exactly-once/send-in-turn.ts): a first attempt whose
 * client sees every requester's workflow still running, so each request is sent.
 */
export function batchEnvironment(): MockActivityEnvironment {
  const running = {
    workflow: { getHandle: () => ({ describe: async () => ({ status: { name: 'RUNNING' } }) }) },
    withAbortSignal: <R>(_: AbortSignal, fn: () => R) => fn(),
  };
  return new MockActivityEnvironment(undefined, { ...quiet, client: running as unknown as Client });
}
