/**
 * What a caller wraps around each request it makes, without threading it through every call: an activity keeps its
 * heartbeats going while a request is in flight (src/activities/heartbeats.ts). The client knows nothing of Temporal:
 * it only awaits its requests through the wrapper of the scope it was called in, if any.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Awaits a request in flight (returning what it returns). */
export type DuringRequest = <T>(request: Promise<T>) => Promise<T>;

const scope = new AsyncLocalStorage<DuringRequest>();

/** Runs `fn`; each request made within it, however deep, is awaited through `during`. */
export const withRequestScope = <T>(during: DuringRequest, fn: () => Promise<T>): Promise<T> => scope.run(during, fn);

/** Awaits `request` through the current scope's wrapper, or as it is outside any scope. */
export const awaitRequest = <T>(request: Promise<T>): Promise<T> => (scope.getStore() ?? ((p) => p))(request);
