/**
 * The commander program: global flags, the Starter made once flags are parsed, and the command groups. Every bad
 * flag gets a message naming the flag and why, with exit code 2.
 */
import { Command } from 'commander';
import { loadStarterConfig } from '../config/starter.js';
import { registerAdminCommands } from './commands/admin.js';
import { registerAuthCommand } from './commands/auth.js';
import { registerListCommand } from './commands/list.js';
import { registerPromoteCommands } from './commands/promote.js';
import { registerRunCommands } from './commands/run.js';
import { registerScheduleCommands } from './commands/schedule.js';
import { registerSetupCommands } from './commands/setup.js';
import { type CliIO, type CommandContext, Starter } from './runner.js';

export function buildProgram(io: CliIO, exit: (code: number) => void): { program: Command; starter: () => Starter } {
  let starter: Starter | undefined;
  const program = new Command('dataops')
    .description('Start and follow dataops-temporal workflows: pipelines, jobs, orders, promotions and schedules.')
    .option('--address <host:port>', 'Temporal frontend (default: $TEMPORAL_ADDRESS or localhost:7233)')
    .option('--namespace <name>', 'Temporal namespace (default: $TEMPORAL_NAMESPACE or default)')
    .option('--task-queue <name>', 'task queue of the workers (default: $TEMPORAL_TASK_QUEUE or dataops-temporal)')
    .option(
      '--profile <name>',
      'profile of temporal.toml (default: $TEMPORAL_PROFILE or default; see $TEMPORAL_CONFIG_FILE)',
    )
    .configureOutput({ writeOut: (s) => io.out.write(s), writeErr: (s) => io.err.write(s) })
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  program.hook('preAction', () => {
    const flags = program.opts<{ address?: string; namespace?: string; taskQueue?: string; profile?: string }>();
    starter = new Starter(loadStarterConfig(flags, io.env), io);
  });
  const ctx: CommandContext = {
    starter: () => {
      if (!starter) throw new Error('not connected');
      return starter;
    },
    action:
      <A extends unknown[]>(fn: (...args: A) => Promise<void>) =>
      async (...args: A) => {
        try {
          await fn(...args);
        } catch (err) {
          throw (await starter?.explained(err)) ?? err;
        } finally {
          await starter?.close();
        }
        exit(ctx.starter().exitCode);
      },
  };
  registerRunCommands(program, ctx);
  registerPromoteCommands(program, ctx);
  registerAdminCommands(program, ctx);
  registerAuthCommand(program, ctx);
  registerListCommand(program, ctx);
  registerScheduleCommands(program, ctx);
  registerSetupCommands(program, ctx);
  return { program, starter: ctx.starter };
}
