/**
 * A worker's namespace made ready for the search attributes the workflows set: checked (or registered) by our worker
 * at start, and by a team's worker at its first workflow's input check (buildActivityDeps), on a connection of its own.
 * Apart from search-attributes.ts so that the CLI, which registers them too, does not load the worker's runtime.
 */
import { NativeConnection, Runtime } from '@temporalio/worker';
import { ConfigError } from '../config/env.js';
import { connectingTo } from '../config/temporal.js';
import type { WorkerConfig } from '../config/worker.js';
import {
  prepareSearchAttributes,
  registrationHelp,
  SearchAttributesMissing,
  type SearchAttributesMode,
} from './search-attributes.js';

/**
 * Makes sure the namespace has the search attributes the workflows will set (an unregistered one would fail every
 * workflow task): registers the missing ones, or with `require` (or without the right to register) refuses to
 * start, naming the commands that register them.
 */
export async function checkSearchAttributes(config: WorkerConfig, connection: NativeConnection): Promise<void> {
  if (config.searchAttributes === 'off') return;
  const { namespace } = config.temporal;
  try {
    await prepared(connection, config.temporal.namespace, config.searchAttributes);
  } catch (err) {
    const why =
      err instanceof SearchAttributesMissing
        ? err.message
        : `cannot reach namespace ${namespace} (${(err as Error).message}): ${registrationHelp(namespace)}`;
    throw new ConfigError([`DATAOPS_SEARCH_ATTRIBUTES: ${why}`]);
  }
}

/** The namespace made ready (search-attributes.ts), with a log line naming what was registered. */
async function prepared(connection: NativeConnection, namespace: string, mode: SearchAttributesMode): Promise<void> {
  const registered = await prepareSearchAttributes(connection, namespace, mode);
  if (registered.length)
    Runtime.instance().logger.info('registered search attributes', { namespace, searchAttributes: registered });
}

/**
 * The namespace made ready for the search attributes once, at the first workflow's input check, on a connection of
 * its own: a team's worker (README, "In your own worker") gets them registered, or its workflows fail at once naming
 * what is missing, instead of failing every workflow task. A failed attempt is tried again at the next check.
 */
export function namespaceReadiness(config: WorkerConfig): (() => Promise<void>) | undefined {
  const mode = config.searchAttributes;
  if (mode === 'off') return undefined;
  let ready: Promise<void> | undefined;
  return () =>
    (ready ??= (async () => {
      const connection = await connectingTo(config.temporal, (options) => NativeConnection.connect(options));
      try {
        await prepared(connection, config.temporal.namespace, mode);
      } finally {
        await connection.close();
      }
    })().catch((err: unknown) => {
      ready = undefined;
      throw err;
    }));
}
