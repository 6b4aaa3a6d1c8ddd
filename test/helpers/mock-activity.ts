/** Running an activity function in the SDK's mock activity environment, its logger quiet but for errors. */
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

/** Runs `fn` as a first attempt. */
export function run<A extends unknown[], R>(fn: (...args: A) => Promise<R>, ...args: A): Promise<R> {
  return runIn(new MockActivityEnvironment(undefined, quiet), fn, ...args);
}
