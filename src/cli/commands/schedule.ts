/**
 * The `schedule` commands: Temporal Schedules that run the data-quality pipeline (create, list, describe, trigger,
 * pause, unpause, delete).
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import { type Command, Option } from 'commander';
import { WORKFLOW_TYPES } from '../../contract/index.js';
import { SEARCH_ATTRIBUTES } from '../../contract/search-attributes.js';
import { scheduleSpecText } from '../schedule-spec.js';
import { triggerAndSee, triggerText } from '../schedule-trigger.js';
import { table } from '../format.js';
import { pipelineInput, pipelineOptions, type PipelineFlags } from '../inputs.js';
import { UsageError, nonEmptyArg, positiveDurationMs, timeZoneArg } from '../parsers.js';
import type { CommandContext } from '../runner.js';

/** What a schedule does when its run is due and its last one is still going (`--overlap`). */
const OVERLAPS = ['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'terminate_other', 'allow_all'] as const;
const overlapPolicy = (name: string) => ScheduleOverlapPolicy[name.toUpperCase() as keyof typeof ScheduleOverlapPolicy];

interface CreateFlags extends PipelineFlags {
  cron?: string;
  timezone?: string;
  every?: number;
  overlap: string;
  catchupWindow?: number;
  paused?: boolean;
  note?: string;
  json?: boolean;
}

export function registerScheduleCommands(program: Command, { starter: s, action }: CommandContext): void {
  const schedule = program.command('schedule').description('Temporal Schedules that run the data-quality pipeline');
  pipelineOptions(schedule.command('create <scheduleId>').description('create a schedule that runs a pipeline'))
    .option('--cron <expression>', 'cron expression, e.g. "0 2 * * *"', nonEmptyArg('a cron expression'))
    .option('--timezone <name>', 'time zone of --cron, e.g. Europe/Berlin (default: UTC)', timeZoneArg)
    .option('--every <duration>', 'interval, e.g. 1h', positiveDurationMs)
    .addOption(
      new Option('--overlap <policy>', 'what to do when a run is still going').choices(OVERLAPS).default('skip'),
    )
    .option('--catchup-window <duration>', 'how far back missed runs are caught up', positiveDurationMs)
    .option('--paused', 'create it paused')
    .option('--note <text>', 'a note on the schedule')
    .option('--json', 'print as JSON')
    .action(
      action(async (scheduleId: string, f: CreateFlags) => {
        if ((f.cron !== undefined) === (f.every !== undefined))
          throw new UsageError('--cron / --every: give exactly one');
        if (f.timezone !== undefined && f.cron === undefined)
          throw new UsageError('--timezone: applies to --cron only (an interval is the same in every time zone)');
        const input = pipelineInput(f);
        const client = await s().connect();
        const handle = await s()
          .withSearchAttributes(WORKFLOW_TYPES.dataQualityPipeline, input, (attributes) =>
            client.schedule.create({
              scheduleId,
              spec:
                f.cron !== undefined
                  ? { cronExpressions: [f.cron], ...(f.timezone !== undefined ? { timezone: f.timezone } : {}) }
                  : { intervals: [{ every: f.every ?? 0 }] },
              action: {
                type: 'startWorkflow',
                workflowType: WORKFLOW_TYPES.dataQualityPipeline,
                taskQueue: s().config.temporal.taskQueue,
                workflowId: `${scheduleId}-run`,
                args: [input],
                ...attributes,
              },
              policies: {
                overlap: overlapPolicy(f.overlap),
                ...(f.catchupWindow !== undefined ? { catchupWindow: f.catchupWindow } : {}),
              },
              state: { paused: Boolean(f.paused), ...(f.note ? { note: f.note } : {}) },
            }),
          )
          .catch((err: unknown) => {
            // The server checks the spec; the SDK reports its refusal as a TypeError with the server's reason.
            if (err instanceof TypeError)
              throw new UsageError(
                `${f.cron === undefined ? '--every' : f.timezone === undefined ? '--cron' : '--cron / --timezone'}: the Temporal server refused it: ${err.message}`,
              );
            if (err instanceof ScheduleAlreadyRunning)
              throw new UsageError(`schedule ${scheduleId} already exists (delete it first, or choose another id)`);
            throw err;
          });
        s().print(f.json ? JSON.stringify({ scheduleId: handle.scheduleId }) : `created schedule ${handle.scheduleId}`);
      }),
    );

  schedule
    .command('list')
    .description('list the schedules of the namespace')
    .option('--json', 'print as JSON')
    .action(
      action(async (f: { json?: boolean }) => {
        const rows = [];
        for await (const item of (await s().connect()).schedule.list())
          rows.push({
            scheduleId: item.scheduleId,
            paused: item.state.paused,
            note: item.state.note ?? null,
            // A paused schedule starts nothing, whatever times the server lists for it.
            next: item.state.paused ? null : (item.info.nextActionTimes[0]?.toISOString() ?? null),
          });
        if (f.json) s().print(JSON.stringify(rows, null, 2));
        else if (!rows.length) s().print(`no schedules in namespace ${s().config.temporal.namespace}`);
        else {
          const width = Math.max(...rows.map((r) => r.scheduleId.length));
          for (const r of rows)
            s().print(
              `${r.scheduleId.padEnd(width)}  ${r.paused ? 'paused' : 'active'}  next ${r.next ?? '-'}${r.note ? `  (${r.note})` : ''}`,
            );
        }
      }),
    );

  schedule
    .command('describe <scheduleId>')
    .description('show a schedule: state, spec, overlap policy, recent and next runs')
    .option('--json', 'print as JSON')
    .action(
      action(async (scheduleId: string, f: { json?: boolean }) => {
        const client = await s().connect();
        const d = await client.schedule.getHandle(scheduleId).describe();
        // Newest first, each with how it ended (or that it still runs) and its gates' verdict.
        const recentRuns = await Promise.all(
          d.info.recentActions
            .slice()
            .reverse()
            .map(async (a) => {
              const { workflowId, firstExecutionRunId } = a.action.workflow;
              const run = await client.workflow
                .getHandle(workflowId, firstExecutionRunId)
                .describe()
                .catch(() => undefined);
              return {
                workflowId,
                at: a.takenAt.toISOString(),
                status: run?.status.name ?? null,
                verdict: run?.typedSearchAttributes.get(SEARCH_ATTRIBUTES.verdict) ?? null,
              };
            }),
        );
        const info = {
          scheduleId,
          paused: d.state.paused,
          note: d.state.note || null,
          spec: d.spec,
          overlap: d.policies.overlap,
          recentRuns,
          nextRuns: d.info.nextActionTimes.map((t) => t.toISOString()),
        };
        if (f.json) {
          s().print(JSON.stringify(info, null, 2));
          return;
        }
        s().print(
          table([
            ['schedule', scheduleId],
            ['state', info.paused ? 'paused' : 'active'],
            ['note', info.note],
            ['spec', scheduleSpecText(info.spec)],
            ['overlap', String(info.overlap).toLowerCase()],
            ...(recentRuns.length
              ? recentRuns.map((r): [string, string] => [
                  'recent run',
                  `${r.workflowId}  ${r.status ?? 'unknown'}${r.verdict ? ` ${r.verdict}` : ''}  at ${r.at}`,
                ])
              : [['recent run', null] as [string, null]]),
            // A paused schedule starts none of them: the server lists them anyway.
            ['next runs', info.paused ? 'none while paused' : info.nextRuns.slice(0, 3).join(', ') || null],
          ]),
        );
      }),
    );

  schedule
    .command('trigger <scheduleId>')
    .description("run the schedule's pipeline now, under its overlap policy unless --overlap says otherwise")
    .addOption(new Option('--overlap <policy>', 'this run only: what to do if a run is still going').choices(OVERLAPS))
    .option('--json', 'print as JSON')
    .action(
      action(async (scheduleId: string, f: { overlap?: string; json?: boolean }) => {
        const handle = (await s().connect()).schedule.getHandle(scheduleId);
        const described = await handle.describe();
        // The SDK's own default is ALLOW_ALL, which would run it beside a run still going whatever the schedule says.
        const overlap = f.overlap !== undefined ? overlapPolicy(f.overlap) : described.policies.overlap;
        const seen = await triggerAndSee(handle, overlap, described);
        const policy = String(overlap).toLowerCase();
        s().print(
          f.json ? JSON.stringify({ scheduleId, overlap: policy, ...seen }) : triggerText(scheduleId, policy, seen),
        );
      }),
    );

  for (const [name, verb] of [
    ['pause', 'paused'],
    ['unpause', 'unpaused'],
  ] as const)
    schedule
      .command(`${name} <scheduleId>`)
      .description(
        `${name} a schedule: ${name === 'pause' ? 'no runs start until it is unpaused' : 'its runs start again'}`,
      )
      .option('--note <text>', 'why')
      .action(
        action(async (scheduleId: string, f: { note?: string }) => {
          const handle = (await s().connect()).schedule.getHandle(scheduleId);
          // Without --note the SDK's own note would read `Paused via TypeScript SDK"` (a stray quote and all).
          const note = f.note ?? `${verb} with the dataops CLI`;
          await (name === 'pause' ? handle.pause(note) : handle.unpause(note));
          s().print(`${verb} ${scheduleId}`);
        }),
      );

  schedule
    .command('delete <scheduleId>')
    .description('delete a schedule (the runs it started go on)')
    .action(
      action(async (scheduleId: string) => {
        await (await s().connect()).schedule.getHandle(scheduleId).delete();
        s().print(`deleted ${scheduleId}`);
      }),
    );
}
