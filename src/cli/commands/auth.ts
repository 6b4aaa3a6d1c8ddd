/**
 * `auth`: each credential profile the worker would use (read from the same variables), and how long it lasts: a
 * personal access token's expiry, or what the service does not tell. Exits 1 when one has expired or expires within
 * 7 days, so a scheduled check can alert before the worker stops working.
 */
import type { Command } from 'commander';
import { loadWorkerProfiles } from '../../config/worker.js';
import { credentialLifetimes } from '../../telemetry/credential-lifetime.js';
import { EXIT, table } from '../format.js';
import type { CommandContext } from '../runner.js';

export function registerAuthCommand(program: Command, { starter: s, action }: CommandContext): void {
  program
    .command('auth')
    .description("show how long each profile's credentials last, read from the worker's variables")
    .option('--json', 'print as JSON')
    .action(
      action(async (f: { json?: boolean }) => {
        const lifetimes = credentialLifetimes(loadWorkerProfiles()).map((c) => ({
          ...c,
          expiresAt: c.expiresAt === null ? null : new Date(c.expiresAt).toISOString(),
        }));
        if (f.json) s().print(JSON.stringify(lifetimes, null, 2));
        else
          for (const c of lifetimes)
            s().print(
              table([
                ['profile', c.profile],
                ['credential', c.credential],
                ['expires', c.expiresAt ?? (c.credential === 'login' ? 'never' : 'not told')],
                ['advice', c.advice],
              ]),
            );
        if (lifetimes.some((c) => c.expiresAt !== null && c.advice)) s().exitCode = EXIT.failed;
      }),
    );
}
