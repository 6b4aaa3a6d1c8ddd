/**
 * The one module that reads the environment (ARCHITECTURE decision 9). Every key is documented with its default.
 * Callers pass `env` explicitly in tests; production code uses `process.env`.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export type Env = Record<string, string | undefined>;

/** Where the local Temporal servers (dev server, time-skipping test server) come from. */
export interface LocalServersConfig {
  /**
   * Cache directory that scripts/install-temporal.sh fills.
   * @default $DATAOPS_TEMPORAL_CACHE_DIR, else $XDG_CACHE_HOME/dataops-temporal, else ~/.cache/dataops-temporal
   */
  cacheDir: string;
  /** An existing Temporal CLI executable. @default $TEMPORAL_CLI_PATH, unset */
  cliPath?: string;
  /** An existing time-skipping test server executable (or launcher). @default $TEMPORAL_TEST_SERVER_PATH, unset */
  testServerPath?: string;
}

export function localServersConfig(env: Env = process.env): LocalServersConfig {
  const cacheDir =
    env.DATAOPS_TEMPORAL_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'dataops-temporal');
  return {
    cacheDir,
    cliPath: env.TEMPORAL_CLI_PATH || undefined,
    testServerPath: env.TEMPORAL_TEST_SERVER_PATH || undefined,
  };
}
