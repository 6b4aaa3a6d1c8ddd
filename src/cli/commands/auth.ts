/**
 * `auth status`: each credential profile the worker would use (read from the same variables), and how long it lasts:
 * a personal access token's expiry, or what the service does not tell. Exits 1 when one has expired or expires within
 * 7 days, so a scheduled check can alert before the worker stops working.
 * `auth login`: the authorization-code flow with PKCE that writes the refresh token file the worker reads.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadWorkerProfiles } from '../../config/worker.js';
import { credentialLifetimes } from '../../telemetry/credential-lifetime.js';
import { authorizationCodeLogin } from '../auth-login.js';
import { EXIT, table } from '../format.js';
import { UsageError, parseDurationMs } from '../parsers.js';
import type { CommandContext } from '../runner.js';

interface LoginFlags {
  baseUrl: string;
  clientId?: string;
  clientSecretFile?: string;
  register?: string;
  out: string;
  port: string;
  timeout: string;
}

export function registerAuthCommand(program: Command, { starter: s, action }: CommandContext): void {
  const auth = program.command('auth').description("the worker's credentials: how long they last, and renewing them");
  auth
    .command('status')
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
  auth
    .command('login')
    .description('sign in through the browser (OAuth authorization code with PKCE) and write the refresh token file')
    .requiredOption('--base-url <url>', 'the service (its /.well-known/oauth-authorization-server)')
    .option('--client-id <id>', 'a confidential client registered with the redirect http://127.0.0.1:<port>/callback')
    .option('--client-secret-file <path>', "that client's secret, in a file (never on the command line)")
    .option('--register <name>', 'register a confidential client of this name instead (its secret goes beside --out)')
    .requiredOption('--out <path>', 'where to write the refresh token (mode 0600): DATAOPS_OAUTH_REFRESH_TOKEN_FILE')
    .option('--port <port>', 'the local port that receives the redirect', '8765')
    .option('--timeout <duration>', 'how long to wait for the sign-in', '5m')
    .action(
      action(async (f: LoginFlags) => {
        const port = Number(f.port);
        if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new UsageError('--port: a port number');
        if (Boolean(f.clientId) !== Boolean(f.clientSecretFile))
          throw new UsageError('--client-id and --client-secret-file go together');
        const client =
          f.clientId && f.clientSecretFile
            ? { id: f.clientId, secret: readFileSync(f.clientSecretFile, 'utf8').trim() }
            : undefined;
        const out = resolve(f.out);
        const done = await authorizationCodeLogin({
          baseUrl: f.baseUrl,
          ...(client ? { client } : {}),
          ...(f.register ? { register: f.register } : {}),
          out,
          port,
          timeoutMs: parseDurationMs(f.timeout),
          say: (line) => s().print(line),
        });
        s().print(
          [
            `wrote the refresh token to ${done.refreshTokenFile} (mode 0600). The worker reads it with:`,
            `  DATAOPS_OAUTH_TOKEN_URL=${done.tokenUrl}`,
            `  DATAOPS_OAUTH_CLIENT_ID=${done.clientId}`,
            `  DATAOPS_OAUTH_CLIENT_SECRET_FILE=${done.clientSecretFile ?? f.clientSecretFile ?? ''}`,
            `  DATAOPS_OAUTH_REFRESH_TOKEN_FILE=${done.refreshTokenFile}`,
          ].join('\n'),
        );
      }),
    );
}
