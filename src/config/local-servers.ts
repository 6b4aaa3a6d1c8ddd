/**
 * Where the local Temporal servers (dev server, time-skipping test server) come from: the tests, the demo and
 * scripts/install-temporal.sh agree on these variables.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { type Env, Problems, doc, processEnv, readEnv, text } from './env.js';

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
  /** The whole Temporal CLI a test runs as an outside caller. @default $TEMPORAL_CALLER_CLI_PATH, unset */
  callerCliPath?: string;
}

/** Where the tests, the demo and the install scripts find the local Temporal servers. */
export const localServersEnv = {
  DATAOPS_TEMPORAL_CACHE_DIR: doc(text(), 'The cache the install scripts fill (servers, TestGen, Node builds).', {
    default: '`$XDG_CACHE_HOME/dataops-temporal`, else `~/.cache/dataops-temporal`',
  }),
  XDG_CACHE_HOME: doc(text(), 'Read for the cache above.'),
  TEMPORAL_CLI_PATH: doc(text(), 'An existing Temporal CLI: its dev server is used instead of the one installed.'),
  TEMPORAL_TEST_SERVER_PATH: doc(text(), 'An existing time-skipping test server (or launcher).'),
  TEMPORAL_CALLER_CLI_PATH: doc(text(), 'The whole Temporal CLI that a test runs as an outside caller.'),
};

export function localServersConfig(env: Env = processEnv()): LocalServersConfig {
  const problems = new Problems();
  const v = readEnv(localServersEnv, env, problems);
  problems.check();
  return {
    cacheDir: v.DATAOPS_TEMPORAL_CACHE_DIR ?? join(v.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'dataops-temporal'),
    ...(v.TEMPORAL_CLI_PATH ? { cliPath: v.TEMPORAL_CLI_PATH } : {}),
    ...(v.TEMPORAL_TEST_SERVER_PATH ? { testServerPath: v.TEMPORAL_TEST_SERVER_PATH } : {}),
    ...(v.TEMPORAL_CALLER_CLI_PATH ? { callerCliPath: v.TEMPORAL_CALLER_CLI_PATH } : {}),
  };
}
