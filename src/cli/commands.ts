/**
 * The starter CLI: start workflows, follow them, approve promotions, manage schedules. Built with commander;
 * every bad flag gets a message naming the flag and why, with exit code 2.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import {
  Client,
  Connection,
  ScheduleOverlapPolicy,
  WorkflowFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { z } from 'zod';
import { loadStarterConfig, temporalConnectionOptions, type StarterConfig } from '../config.js';
import {
  DataQualityPipelineInput,
  ProfileTableGroupInput,
  PromoteTestDefinitionsInput,
  RunOrderInput,
  RunTestSuiteInput,
  WORKFLOW_TYPES,
  approveUpdate,
  issueLines,
  previewQuery,
  progressQuery,
  rejectUpdate,
  type DataQualityPipelineResult,
  type ProfileTableGroupResult,
  type PromoteTestDefinitionsResult,
  type RunOrderResult,
  type RunTestSuiteResult,
} from '../contract/index.js';
import { follow } from './follow.js';
import {
  EXIT,
  formatOrder,
  formatPipeline,
  formatPreview,
  formatProfile,
  formatPromotion,
  formatTestRun,
  table,
} from './format.js';

/** Thrown for a usage problem found after parsing (exit 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface CliIO {
  out: NodeJS.WriteStream;
  err: NodeJS.WriteStream;
  env: Record<string, string | undefined>;
}

// ---- argument parsers ---------------------------------------------------------------------------------------------

export function parseDurationMs(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError('expected a duration such as 500ms, 30s, 5m, 2h or 1d');
  const factor = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 'ms') as 'ms'];
  return Math.round(Number(m[1]) * factor);
}
const intArg =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
    return n;
  };
const numArg = (min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max)
    throw new InvalidArgumentError(`expected a number from ${min} to ${max}`);
  return n;
};
/** `name=value`, collected into an object; values are JSON when they parse as JSON, else strings. */
const paramArg = (value: string, previous: Record<string, unknown> = {}) => {
  const i = value.indexOf('=');
  if (i < 1) throw new InvalidArgumentError('expected name=value');
  const raw = value.slice(i + 1);
  let parsed: unknown = raw;
  try {
    parsed = JSON.parse(raw);
  } catch {
    /* a plain string */
  }
  return { ...previous, [value.slice(0, i)]: parsed };
};
const orderArg = (value: string) => {
  const parts = value.split('/');
  if (parts.length !== 3 || parts.some((p) => !p)) throw new InvalidArgumentError('expected kitchen/recipe/variation');
  return { kitchen: parts[0]!, recipe: parts[1]!, variation: parts[2]! };
};

/** Validates a workflow input with its contract schema; problems become a usage error naming each field. */
function checked<T extends z.ZodType>(schema: T, input: unknown): z.input<T> {
  const parsed = schema.safeParse(input);
  if (!parsed.success)
    throw new UsageError(
      `invalid input:\n${issueLines(parsed.error)
        .map((line) => `  ${line}`)
        .join('\n')}`,
    );
  return input as z.input<T>;
}

// ---- shared options -------------------------------------------------------------------------------------------------

interface JobFlags {
  profile?: string;
  projectCode?: string;
  waitStrategy?: string;
  expectedDuration?: number;
  pollInterval?: number;
  maxPollInterval?: number;
  cancelRemoteJob?: boolean;
}
interface RunFlags {
  workflowId?: string;
  wait?: boolean;
  follow?: boolean;
  json?: boolean;
}

function jobOptions(cmd: Command): Command {
  return cmd
    .option('--profile <name>', 'credential profile configured on the worker', 'default')
    .option('--project-code <code>', 'project of the table group or suite (lets a lost submission be found)')
    .addOption(
      new Option('--wait-strategy <strategy>', 'how to wait for jobs').choices(['auto', 'heartbeat', 'deferrable']),
    )
    .option('--expected-duration <duration>', 'expected job duration (auto picks deferrable from 2h)', parseDurationMs)
    .option('--poll-interval <duration>', 'first poll interval', parseDurationMs)
    .option('--max-poll-interval <duration>', 'longest poll interval', parseDurationMs)
    .option('--no-cancel-remote-job', 'leave the remote job running when the workflow is cancelled');
}

function runOptions(cmd: Command): Command {
  return cmd
    .option('--workflow-id <id>', 'workflow id (default: generated)')
    .option('--no-wait', 'start and return the workflow id at once')
    .option('--follow', 'show live progress until the end')
    .option('--json', 'print the result as JSON');
}

function jobInput(f: JobFlags): Record<string, unknown> {
  return {
    profile: f.profile,
    ...(f.projectCode ? { projectCode: f.projectCode } : {}),
    ...(f.waitStrategy ? { waitStrategy: f.waitStrategy } : {}),
    ...(f.expectedDuration ? { expectedDurationMs: f.expectedDuration } : {}),
    ...(f.pollInterval ? { pollIntervalMs: f.pollInterval } : {}),
    ...(f.maxPollInterval ? { maxPollIntervalMs: f.maxPollInterval } : {}),
    ...(f.cancelRemoteJob === false ? { cancelRemoteJob: false } : {}),
  };
}

interface PipelineFlags extends JobFlags {
  tableGroup: string;
  testSuite: string;
  order?: { kitchen: string; recipe: string; variation: string };
  param?: Record<string, unknown>;
  orderWait?: boolean;
  minScore?: number;
  maxFailed?: number;
  maxErrors?: number;
  warningsAsFailures?: boolean;
  onGateFailure?: string;
  testGeneration?: string;
}

function pipelineOptions(cmd: Command): Command {
  return jobOptions(cmd)
    .requiredOption('--table-group <id>', 'table group to profile')
    .requiredOption('--test-suite <id>', 'test suite to run')
    .option('--order <kitchen/recipe/variation>', 'run this order first', orderArg)
    .option('--param <name=value>', 'runtime override for the order (repeatable)', paramArg)
    .option('--no-order-wait', 'do not wait for the order run to finish')
    .option('--min-score <n>', 'gate: lowest acceptable test score', numArg(0, 100))
    .option('--max-failed <n>', 'gate: most failed tests allowed', intArg(0))
    .option('--max-errors <n>', 'gate: most tests in error allowed', intArg(0))
    .option('--warnings-as-failures', 'gate: count warnings as failed tests')
    .addOption(
      new Option('--on-gate-failure <mode>', 'fail the workflow, or report a failed result').choices([
        'fail',
        'report',
      ]),
    )
    .addOption(
      new Option('--test-generation <mode>', 'wait for follow-up test generation').choices(['auto', 'wait', 'skip']),
    );
}

export function pipelineInput(f: PipelineFlags): DataQualityPipelineInput {
  if (f.param && !f.order) throw new UsageError('--param: only with --order');
  return checked(DataQualityPipelineInput, {
    ...jobInput(f),
    tableGroupId: f.tableGroup,
    testSuiteId: f.testSuite,
    ...(f.order ? { order: { ...f.order, parameters: f.param ?? {}, wait: f.orderWait !== false } } : {}),
    gates: {
      ...(f.minScore !== undefined ? { minScore: f.minScore } : {}),
      ...(f.maxFailed !== undefined ? { maxFailed: f.maxFailed } : {}),
      ...(f.maxErrors !== undefined ? { maxErrors: f.maxErrors } : {}),
      warningsAsFailures: Boolean(f.warningsAsFailures),
    },
    ...(f.onGateFailure ? { onGateFailure: f.onGateFailure } : {}),
    ...(f.testGeneration ? { testGeneration: f.testGeneration } : {}),
  });
}

// ---- running --------------------------------------------------------------------------------------------------------

export class Starter {
  private client?: Client;
  private connection?: Connection;
  exitCode: number = EXIT.ok;

  constructor(
    readonly config: StarterConfig,
    readonly io: CliIO,
  ) {}

  async connect(): Promise<Client> {
    if (this.client) return this.client;
    this.connection = await Connection.connect(temporalConnectionOptions(this.config.temporal));
    this.client = new Client({ connection: this.connection, namespace: this.config.temporal.namespace });
    return this.client;
  }

  async close(): Promise<void> {
    await this.connection?.close();
  }

  print(line: string): void {
    this.io.out.write(`${line}\n`);
  }

  link(workflowId: string): string | null {
    return this.config.uiUrl
      ? `${this.config.uiUrl}/namespaces/${encodeURIComponent(this.config.temporal.namespace)}/workflows/${encodeURIComponent(workflowId)}`
      : null;
  }

  async start(type: string, input: unknown, flags: RunFlags): Promise<WorkflowHandle> {
    const client = await this.connect();
    const workflowId =
      flags.workflowId ??
      `${type}-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}-${randomUUID().slice(0, 8)}`;
    const handle = await client.workflow.start(type, {
      taskQueue: this.config.temporal.taskQueue,
      workflowId,
      args: [input],
    });
    if (!flags.json) {
      this.print(`started ${type} ${workflowId}`);
      const url = this.link(workflowId);
      if (url) this.print(`web UI: ${url}`);
    }
    return handle;
  }

  /** Waits for the result (following if asked), prints it, and sets the exit code from the outcome. */
  async finish<T>(
    handle: WorkflowHandle,
    flags: RunFlags,
    format: (r: T) => string,
    failed: (r: T) => number = () => EXIT.ok,
  ): Promise<T | undefined> {
    if (flags.wait === false) {
      if (flags.json) this.print(JSON.stringify({ workflowId: handle.workflowId }));
      return undefined;
    }
    if (flags.follow) await follow(handle, this.io.out);
    try {
      const result = (await handle.result()) as T;
      this.print(flags.json ? JSON.stringify(result, null, 2) : format(result));
      this.exitCode = failed(result);
      return result;
    } catch (err) {
      this.exitCode = this.failure(err, flags);
      return undefined;
    }
  }

  failure(err: unknown, flags: { json?: boolean }): number {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const cause = err.cause;
    let code: number = EXIT.failed;
    if (cause instanceof CancelledFailure) code = EXIT.cancelled;
    else if (cause instanceof ApplicationFailure && cause.type === 'QualityGateFailed') code = EXIT.gateFailed;
    const type = cause instanceof ApplicationFailure ? cause.type : (cause?.name ?? 'Failure');
    if (flags.json)
      this.print(
        JSON.stringify(
          {
            failed: true,
            type,
            message: cause?.message ?? err.message,
            details: cause instanceof ApplicationFailure ? cause.details : null,
          },
          null,
          2,
        ),
      );
    else {
      this.io.err.write(
        `${code === EXIT.cancelled ? 'cancelled' : 'failed'}: ${type}: ${cause?.message ?? err.message}\n`,
      );
      if (cause instanceof ApplicationFailure && cause.type === 'QualityGateFailed' && cause.details?.[0])
        this.print(formatPipeline(cause.details[0] as DataQualityPipelineResult));
    }
    return code;
  }
}

// ---- the program --------------------------------------------------------------------------------------------------

export function buildProgram(io: CliIO, exit: (code: number) => void): { program: Command; starter: () => Starter } {
  let starter: Starter | undefined;
  const program = new Command('dataops')
    .description('Start and follow dataops-temporal workflows: pipelines, jobs, orders, promotions and schedules.')
    .option('--address <host:port>', 'Temporal frontend (default: $TEMPORAL_ADDRESS or localhost:7233)')
    .option('--namespace <name>', 'Temporal namespace (default: $TEMPORAL_NAMESPACE or default)')
    .option('--task-queue <name>', 'task queue of the workers (default: $TEMPORAL_TASK_QUEUE or dataops-temporal)')
    .configureOutput({ writeOut: (s) => io.out.write(s), writeErr: (s) => io.err.write(s) })
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  program.hook('preAction', () => {
    const g = program.opts<{ address?: string; namespace?: string; taskQueue?: string }>();
    starter = new Starter(
      loadStarterConfig({
        ...io.env,
        ...(g.address ? { TEMPORAL_ADDRESS: g.address } : {}),
        ...(g.namespace ? { TEMPORAL_NAMESPACE: g.namespace } : {}),
        ...(g.taskQueue ? { TEMPORAL_TASK_QUEUE: g.taskQueue } : {}),
      }),
      io,
    );
  });
  const s = () => {
    if (!starter) throw new Error('not connected');
    return starter;
  };
  const action =
    <A extends unknown[]>(fn: (...args: A) => Promise<void>) =>
    async (...args: A) => {
      try {
        await fn(...args);
      } finally {
        await starter?.close();
      }
      exit(s().exitCode);
    };

  runOptions(
    pipelineOptions(
      program
        .command('pipeline')
        .description('run the data-quality pipeline: (order) → profile → generation → test run → gates'),
    ),
  ).action(
    action(async (f: PipelineFlags & RunFlags) => {
      const handle = await s().start(WORKFLOW_TYPES.dataQualityPipeline, pipelineInput(f), f);
      await s().finish<DataQualityPipelineResult>(handle, f, formatPipeline, (r) =>
        r.status === 'passed' ? EXIT.ok : EXIT.gateFailed,
      );
    }),
  );

  runOptions(jobOptions(program.command('profile').description('profile a table group (waits through interrupts)')))
    .requiredOption('--table-group <id>', 'table group to profile')
    .action(
      action(async (f: JobFlags & RunFlags & { tableGroup: string }) => {
        const input = checked(ProfileTableGroupInput, { ...jobInput(f), tableGroupId: f.tableGroup });
        await s().finish<ProfileTableGroupResult>(
          await s().start(WORKFLOW_TYPES.profileTableGroup, input, f),
          f,
          formatProfile,
        );
      }),
    );

  runOptions(jobOptions(program.command('test-run').description('run a test suite and fetch its summary')))
    .requiredOption('--test-suite <id>', 'test suite to run')
    .action(
      action(async (f: JobFlags & RunFlags & { testSuite: string }) => {
        const input = checked(RunTestSuiteInput, { ...jobInput(f), testSuiteId: f.testSuite });
        await s().finish<RunTestSuiteResult>(await s().start(WORKFLOW_TYPES.runTestSuite, input, f), f, formatTestRun);
      }),
    );

  runOptions(program.command('order').description('run an order in a kitchen, with runtime overrides'))
    .requiredOption('--kitchen <name>', 'kitchen')
    .requiredOption('--recipe <name>', 'recipe')
    .requiredOption('--variation <name>', 'variation')
    .option('--param <name=value>', 'runtime override (repeatable)', paramArg)
    .option('--wait-for-run', 'wait for the order run to finish')
    .option('--profile <name>', 'credential profile configured on the worker', 'default')
    .action(
      action(
        async (
          f: RunFlags & {
            kitchen: string;
            recipe: string;
            variation: string;
            param?: Record<string, unknown>;
            waitForRun?: boolean;
            profile: string;
          },
        ) => {
          const input = checked(RunOrderInput, {
            profile: f.profile,
            kitchen: f.kitchen,
            recipe: f.recipe,
            variation: f.variation,
            parameters: f.param ?? {},
            wait: Boolean(f.waitForRun),
          });
          await s().finish<RunOrderResult>(await s().start(WORKFLOW_TYPES.runOrder, input, f), f, formatOrder);
        },
      ),
    );

  runOptions(program.command('promote').description('promote test definitions: export → preview → approval → apply'))
    .requiredOption('--from-suite <id>', 'source test suite')
    .requiredOption('--to-suite <id>', 'target test suite')
    .addOption(
      new Option('--preset <name>', 'a common configuration').choices([
        'upsert',
        'promotion',
        'bulk_calibration',
        'insert_only',
        'clone_or_sync',
      ]),
    )
    .addOption(new Option('--on-match <policy>').choices(['overwrite_all', 'overwrite_unlocked', 'skip']))
    .addOption(new Option('--on-new <policy>').choices(['create', 'create_and_lock', 'skip']))
    .addOption(new Option('--on-absence <policy>').choices(['do_nothing', 'delete_all', 'delete_unlocked']))
    .addOption(new Option('--mode <mode>').choices(['apply', 'apply_strict']).default('apply'))
    .addOption(new Option('--origin <origin>', 'export filter').choices(['manual', 'auto', 'both']))
    .option('--table-name <name>', 'export filter')
    .option('--test-type <code>', 'export filter')
    .option('--no-approval', 'apply without waiting for an approval')
    .option('--approval-timeout <duration>', 'how long to wait for an approval', parseDurationMs)
    .option('--profile <name>', 'credential profile configured on the worker', 'default')
    .action(
      action(
        async (
          f: RunFlags & {
            fromSuite: string;
            toSuite: string;
            preset?: string;
            onMatch?: string;
            onNew?: string;
            onAbsence?: string;
            mode: string;
            origin?: string;
            tableName?: string;
            testType?: string;
            approval: boolean;
            approvalTimeout?: number;
            profile: string;
          },
        ) => {
          const explicit = [f.onMatch, f.onNew, f.onAbsence].filter(Boolean).length;
          if (f.preset && explicit)
            throw new UsageError('--preset: give a preset or --on-match/--on-new/--on-absence, not both');
          if (!f.preset && explicit !== 3)
            throw new UsageError('--preset: required, unless all of --on-match, --on-new and --on-absence are given');
          const input = checked(PromoteTestDefinitionsInput, {
            profile: f.profile,
            source: {
              testSuiteId: f.fromSuite,
              filters: {
                ...(f.origin ? { origin: f.origin } : {}),
                ...(f.tableName ? { table_name: f.tableName } : {}),
                ...(f.testType ? { test_type: f.testType } : {}),
              },
            },
            targetTestSuiteId: f.toSuite,
            ...(f.preset
              ? { preset: f.preset }
              : { policy: { on_match: f.onMatch, on_new: f.onNew, on_absence: f.onAbsence } }),
            mode: f.mode,
            approval: { required: f.approval, ...(f.approvalTimeout ? { timeoutMs: f.approvalTimeout } : {}) },
          });
          const handle = await s().start(WORKFLOW_TYPES.promoteTestDefinitions, input, f);
          if (f.approval && f.wait !== false && !f.follow) {
            const preview = await waitForPreview(handle);
            if (f.json) s().print(JSON.stringify(preview, null, 2));
            else {
              s().print(formatPreview(preview));
              s().print(`approve: dataops approve ${handle.workflowId} --preview-id ${preview.previewId}`);
              s().print(`reject:  dataops reject ${handle.workflowId} --reason "..."`);
            }
            return;
          }
          await s().finish<PromoteTestDefinitionsResult>(handle, f, formatPromotion, (r) =>
            r.status === 'applied' ? EXIT.ok : EXIT.notApplied,
          );
        },
      ),
    );

  program
    .command('approve <workflowId>')
    .description('approve a waiting promotion; --preview-id must name the preview you reviewed')
    .requiredOption('--preview-id <id>', 'the preview being approved (from the preview)')
    .option('--by <name>', 'who approves')
    .option('--comment <text>', 'comment')
    .action(
      action(async (workflowId: string, f: { previewId: string; by?: string; comment?: string }) => {
        const handle = (await s().connect()).workflow.getHandle(workflowId);
        const ack = await handle.executeUpdate(approveUpdate, {
          args: [
            { previewId: f.previewId, ...(f.by ? { by: f.by } : {}), ...(f.comment ? { comment: f.comment } : {}) },
          ],
        });
        s().print(`${ack.decision}: preview ${ack.previewId}`);
      }),
    );

  program
    .command('reject <workflowId>')
    .description('reject a waiting promotion; nothing is applied')
    .requiredOption('--reason <text>', 'why')
    .option('--by <name>', 'who rejects')
    .option('--preview-id <id>', 'the preview being rejected')
    .action(
      action(async (workflowId: string, f: { reason: string; by?: string; previewId?: string }) => {
        const handle = (await s().connect()).workflow.getHandle(workflowId);
        const ack = await handle.executeUpdate(rejectUpdate, {
          args: [
            { reason: f.reason, ...(f.by ? { by: f.by } : {}), ...(f.previewId ? { previewId: f.previewId } : {}) },
          ],
        });
        s().print(`${ack.decision}`);
      }),
    );

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
        if (f.json)
          s().print(
            JSON.stringify(
              { workflowId, type: d.type, status: d.status.name, progress, memo: d.memo ?? null },
              null,
              2,
            ),
          );
        else {
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
              ['error', progress?.error],
              ['web UI', s().link(workflowId)],
            ]),
          );
        }
      }),
    );

  const schedule = program.command('schedule').description('Temporal Schedules that run the data-quality pipeline');
  pipelineOptions(schedule.command('create <scheduleId>').description('create a schedule that runs a pipeline'))
    .option('--cron <expression>', 'cron expression, e.g. "0 2 * * *"')
    .option('--every <duration>', 'interval, e.g. 1h', parseDurationMs)
    .addOption(
      new Option('--overlap <policy>', 'what to do when a run is still going')
        .choices(['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'terminate_other', 'allow_all'])
        .default('skip'),
    )
    .option('--catchup-window <duration>', 'how far back missed runs are caught up', parseDurationMs)
    .option('--paused', 'create it paused')
    .option('--note <text>', 'a note on the schedule')
    .option('--json', 'print as JSON')
    .action(
      action(
        async (
          scheduleId: string,
          f: PipelineFlags & {
            cron?: string;
            every?: number;
            overlap: string;
            catchupWindow?: number;
            paused?: boolean;
            note?: string;
            json?: boolean;
          },
        ) => {
          if (Boolean(f.cron) === Boolean(f.every)) throw new UsageError('--cron / --every: give exactly one');
          const input = pipelineInput(f);
          const client = await s().connect();
          const handle = await client.schedule.create({
            scheduleId,
            spec: f.cron ? { cronExpressions: [f.cron] } : { intervals: [{ every: f.every ?? 0 }] },
            action: {
              type: 'startWorkflow',
              workflowType: WORKFLOW_TYPES.dataQualityPipeline,
              taskQueue: s().config.temporal.taskQueue,
              workflowId: `${scheduleId}-run`,
              args: [input],
            },
            policies: {
              overlap: ScheduleOverlapPolicy[f.overlap.toUpperCase() as keyof typeof ScheduleOverlapPolicy],
              ...(f.catchupWindow ? { catchupWindow: f.catchupWindow } : {}),
            },
            state: { paused: Boolean(f.paused), ...(f.note ? { note: f.note } : {}) },
          });
          s().print(
            f.json ? JSON.stringify({ scheduleId: handle.scheduleId }) : `created schedule ${handle.scheduleId}`,
          );
        },
      ),
    );
  schedule
    .command('list')
    .option('--json', 'print as JSON')
    .action(
      action(async (f: { json?: boolean }) => {
        const rows = [];
        for await (const item of (await s().connect()).schedule.list())
          rows.push({
            scheduleId: item.scheduleId,
            paused: item.state.paused,
            note: item.state.note ?? null,
            next: item.info.nextActionTimes[0]?.toISOString() ?? null,
          });
        if (f.json) s().print(JSON.stringify(rows, null, 2));
        else
          for (const r of rows)
            s().print(
              `${r.scheduleId}  ${r.paused ? 'paused' : 'active'}  next ${r.next ?? '-'}${r.note ? `  (${r.note})` : ''}`,
            );
      }),
    );
  schedule
    .command('describe <scheduleId>')
    .option('--json', 'print as JSON')
    .action(
      action(async (scheduleId: string, f: { json?: boolean }) => {
        const d = await (await s().connect()).schedule.getHandle(scheduleId).describe();
        const info = {
          scheduleId,
          paused: d.state.paused,
          note: d.state.note ?? null,
          spec: d.spec,
          overlap: d.policies.overlap,
          recentRuns: d.info.recentActions.map((a) => ({
            workflowId: a.action.workflow.workflowId,
            at: a.takenAt.toISOString(),
          })),
          nextRuns: d.info.nextActionTimes.map((t) => t.toISOString()),
        };
        s().print(JSON.stringify(info, null, 2));
        void f;
      }),
    );
  for (const [name, verb] of [
    ['pause', 'paused'],
    ['unpause', 'unpaused'],
  ] as const)
    schedule
      .command(`${name} <scheduleId>`)
      .option('--note <text>', 'why')
      .action(
        action(async (scheduleId: string, f: { note?: string }) => {
          const handle = (await s().connect()).schedule.getHandle(scheduleId);
          await (name === 'pause' ? handle.pause(f.note) : handle.unpause(f.note));
          s().print(`${verb} ${scheduleId}`);
        }),
      );
  schedule.command('delete <scheduleId>').action(
    action(async (scheduleId: string) => {
      await (await s().connect()).schedule.getHandle(scheduleId).delete();
      s().print(`deleted ${scheduleId}`);
    }),
  );

  return { program, starter: s };
}

async function waitForPreview(handle: WorkflowHandle) {
  for (let i = 0; i < 600; i++) {
    const preview = await handle.query(previewQuery).catch(() => null);
    if (preview) return preview;
    const d = await handle.describe();
    if (d.status.name !== 'RUNNING') await handle.result(); // surfaces the failure
    await delay(500);
  }
  throw new Error('no preview after 5 minutes: is a worker running on the task queue?');
}
