#!/usr/bin/env node
/**
 * The starter CLI (`npm run cli -- <command>` or `node dist/src/starter.js <command>`): start and follow pipelines,
 * jobs, orders and promotions, approve or reject promotions, cancel, and manage schedules. `--help` on each command.
 */
import { CommanderError } from 'commander';
import { UsageError } from './cli/parsers.js';
import { buildProgram } from './cli/program.js';
import { NotFound, type CliIO } from './cli/runner.js';
import { EXIT } from './cli/format.js';
import { ConfigError } from './config/env.js';
import { isEntryPoint } from './local/entry-point.js';

/** Runs the CLI; resolves to the exit code. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  let code: number = EXIT.ok;
  const { program } = buildProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.code === 'commander.helpDisplayed' || err.code === 'commander.help' || err.code === 'commander.version'
        ? EXIT.ok
        : EXIT.usage;
    }
    if (err instanceof UsageError || err instanceof ConfigError) {
      io.err.write(`error: ${err.message}\n`);
      return EXIT.usage;
    }
    if (err instanceof NotFound) {
      io.err.write(`error: ${err.message}\n`);
      return EXIT.notFound;
    }
    io.err.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.failed;
  }
}

if (isEntryPoint(import.meta.url)) {
  runCli(process.argv.slice(2), { out: process.stdout, err: process.stderr, ownsProcess: true }).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err);
      process.exit(EXIT.failed);
    },
  );
}
