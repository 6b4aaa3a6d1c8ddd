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

/** The standalone simulator process (`npm run simulator`). Flags win over the environment. */
export interface SimulatorProcessConfig {
  /** @default $SIM_PORT, else 8700 */
  port: number;
  /** @default $SIM_HOST, else 127.0.0.1 */
  host: string;
  /** @default $SIM_SEED_FILE, else the built-in DEMO project */
  seedFile?: string;
  /** @default $SIM_STATE_FILE, else state in memory */
  stateFile?: string;
  /** Serve the test controls under /_sim/. @default $SIM_CONTROLS === 'true', else false */
  controls: boolean;
}

export function simulatorProcessConfig(
  env: Env,
  flags: { port?: string; host?: string; seedFile?: string; stateFile?: string; controls?: boolean },
): SimulatorProcessConfig {
  const rawPort = flags.port ?? env.SIM_PORT ?? '8700';
  const port = Number(rawPort);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port / SIM_PORT: expected a port number from 0 to 65535, got '${rawPort}'`);
  return {
    port,
    host: flags.host ?? env.SIM_HOST ?? '127.0.0.1',
    seedFile: flags.seedFile ?? (env.SIM_SEED_FILE || undefined),
    stateFile: flags.stateFile ?? (env.SIM_STATE_FILE || undefined),
    controls: flags.controls ?? env.SIM_CONTROLS === 'true',
  };
}
