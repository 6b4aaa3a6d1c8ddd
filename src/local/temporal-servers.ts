/** Resolves the local Temporal dev server and test server: an explicit path, our installed cache, or the SDK download. */
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import type { EphemeralServerExecutable } from '@temporalio/testing';
import type { LocalServersConfig } from '../config/local-servers.js';
import { pinnedVersions } from './package-root.js';

/** Where a server executable came from, for logs and test diagnostics. */
export type ServerSource = 'env' | 'installed' | 'sdk-download';

export interface ResolvedServer {
  executable: EphemeralServerExecutable;
  source: ServerSource;
  /** The executable's path, or undefined when the SDK downloads it. */
  path?: string;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function resolve(override: string | undefined, installed: string, downloadDir: string): ResolvedServer {
  if (override) {
    if (!isExecutable(override))
      throw new Error(`configured Temporal server executable is not executable: ${override}`);
    return { executable: { type: 'existing-path', path: override }, source: 'env', path: override };
  }
  if (isExecutable(installed)) {
    return { executable: { type: 'existing-path', path: installed }, source: 'installed', path: installed };
  }
  // The normal path for a user with internet access: the SDK downloads and caches the server itself.
  return { executable: { type: 'cached-download', downloadDir }, source: 'sdk-download' };
}

/** The dev server (Temporal CLI): TEMPORAL_CLI_PATH, else the installed CLI, else the SDK's download. */
export function resolveDevServer(config: LocalServersConfig): ResolvedServer {
  const { cli } = pinnedVersions();
  return resolve(
    config.cliPath,
    join(config.cacheDir, `temporal-cli-${cli}`, 'temporal'),
    join(config.cacheDir, 'sdk-download'),
  );
}

/**
 * The whole Temporal CLI, as an outside caller runs it (`temporal workflow start …`; the dev server above is only
 * `server start-dev`): TEMPORAL_CALLER_CLI_PATH, else the installed one, else `temporal` on the PATH.
 */
export function resolveCallerCli(config: LocalServersConfig): string {
  const installed = join(config.cacheDir, `temporal-cli-${pinnedVersions().callerCli}-full`, 'temporal');
  return config.callerCliPath ?? (isExecutable(installed) ? installed : 'temporal');
}

/** The time-skipping test server: TEMPORAL_TEST_SERVER_PATH, else the installed one, else the SDK's download. */
export function resolveTestServer(config: LocalServersConfig): ResolvedServer {
  const { testServer } = pinnedVersions();
  return resolve(
    config.testServerPath,
    join(config.cacheDir, `temporal-test-server-${testServer}`, 'temporal-test-server'),
    join(config.cacheDir, 'sdk-download'),
  );
}
