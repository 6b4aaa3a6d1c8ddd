/**
 * The commands that act on a running or finished workflow by id: `cancel` and `status`.
 */
import type { Command } from 'commander';
import { progressQuery } from '../../contract/index.js';
import { table } from '../format.js';
import type { CommandContext } from '../runner.js';

export function registerAdminCommands(program: Command, { starter: s, action }: CommandContext): void {
  program
    .command('cancel <workflowId>')
    .description('cancel a workflow (its remote job is cancelled too)')
    .action(
      action(async (workflowId: string) => {
        await (await s().connect()).workflow.getHandle(workflowId).cancel();
        s().print(`cancel requested: ${workflowId}`);
      }),
    );

  program
    .command('status <workflowId>')
    .description('show a workflow: status, stage, jobs, and its result when closed')
    .option('--json', 'print as JSON')
    .action(
      action(async (workflowId: string, f: { json?: boolean }) => {
        const handle = (await s().connect()).workflow.getHandle(workflowId);
        const d = await handle.describe();
        const progress = await handle.query(progressQuery).catch(() => null);
        if (f.json) {
          s().print(
            JSON.stringify(
              { workflowId, type: d.type, status: d.status.name, progress, memo: d.memo ?? null },
              null,
              2,
            ),
          );
          return;
        }
        s().print(
          table([
            ['workflow', `${d.type} ${workflowId}`],
            ['status', d.status.name],
            ['stage', progress?.stage],
            ['jobs', progress?.jobs.map((j) => `${j.role} ${j.jobId} ${j.status ?? ''}`).join('; ')],
            [
              'remote cancel',
              progress?.remoteCancel ? `${progress.remoteCancel.jobId} ${progress.remoteCancel.finalStatus}` : null,
            ],
            [
              'stuck',
              progress?.stuck
                ? `${progress.stuck.jobId} ${progress.stuck.status} for ${Math.round(progress.stuck.forMs / 1000)} s`
                : null,
            ],
            ['error', progress?.error],
            ['web UI', s().link(workflowId)],
          ]),
        );
      }),
    );
}
