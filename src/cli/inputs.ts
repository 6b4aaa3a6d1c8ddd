/**
 * The option sets that several commands share (job, run and pipeline flags) and the builders that turn flags into
 * workflow inputs, checked against the contract's schemas so that a bad input is a usage error naming each field.
 */
import { type Command, Option } from 'commander';
import type { z } from 'zod';
import { DataQualityPipelineInput, issueLines } from '../contract/index.js';
import { UsageError, intArg, numArg, orderArg, paramArg, parseDurationMs } from './parsers.js';

/**
 * The flag each workflow input field comes from, so that a problem names what was typed as well as the field. A path
 * not listed is looked up by its prefixes (`order.kitchen` comes from `--order`).
 */
export const FLAG_OF: Readonly<Record<string, string>> = {
  profile: '--profile',
  projectCode: '--project-code',
  waitStrategy: '--wait-strategy',
  expectedDurationMs: '--expected-duration',
  pollIntervalMs: '--poll-interval',
  maxPollIntervalMs: '--max-poll-interval',
  maxStatusDurationMs: '--max-status-duration',
  onStatusStuck: '--on-status-stuck',
  statusReports: '--status-reports',
  tableGroupId: '--table-group',
  testSuiteId: '--test-suite',
  order: '--order',
  'order.parameters': '--param',
  'gates.minScorePercent': '--min-score-percent',
  'gates.maxFailed': '--max-failed',
  'gates.maxErrors': '--max-errors',
  onGateFailure: '--on-gate-failure',
  testGeneration: '--test-generation',
  kitchen: '--kitchen',
  recipe: '--recipe',
  variation: '--variation',
  parameters: '--param',
  'source.testSuiteId': '--from-suite',
  'source.filters.origin': '--origin',
  'source.filters.table_name': '--table-name',
  'source.filters.test_type': '--test-type',
  targetTestSuiteId: '--to-suite',
  preset: '--preset',
  'policy.on_match': '--on-match',
  'policy.on_new': '--on-new',
  'policy.on_absence': '--on-absence',
  mode: '--mode',
  'approval.timeoutMs': '--approval-timeout',
};

/** `--flag (field)` for a field a flag gave, else the field. */
export function flagged(path: string): string {
  for (let p = path; p; p = p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : '') {
    const flag = FLAG_OF[p];
    if (flag) return `${flag} (${path})`;
  }
  return path;
}

/** Validates a workflow input with its contract schema; problems become a usage error naming each flag and field. */
export function checked<T extends z.ZodType>(schema: T, input: unknown): z.input<T> {
  const parsed = schema.safeParse(input);
  if (!parsed.success)
    throw new UsageError(
      `invalid input:\n${issueLines(parsed.error, flagged)
        .map((line) => `  ${line}`)
        .join('\n')}`,
    );
  return input as z.input<T>;
}

export interface JobFlags {
  profile?: string;
  projectCode?: string;
  waitStrategy?: string;
  expectedDuration?: number;
  pollInterval?: number;
  maxPollInterval?: number;
  maxStatusDuration?: number;
  onStatusStuck?: string;
  statusReports?: number;
  cancelRemoteJob?: boolean;
}

export interface RunFlags {
  workflowId?: string;
  wait?: boolean;
  follow?: boolean;
  json?: boolean;
}

export interface PipelineFlags extends JobFlags {
  tableGroup: string;
  testSuite: string;
  order?: { kitchen: string; recipe: string; variation: string };
  param?: Record<string, unknown>;
  orderWait?: boolean;
  minScorePercent?: number;
  maxFailed?: number;
  maxErrors?: number;
  warningsAsFailures?: boolean;
  onGateFailure?: string;
  testGeneration?: string;
}

export const profileOption = (cmd: Command): Command =>
  cmd.option('--profile <name>', 'credential profile configured on the worker', 'default');

export function jobOptions(cmd: Command): Command {
  return profileOption(cmd)
    .option('--project-code <code>', 'project of the table group or suite (lets a lost submission be found)')
    .addOption(
      new Option('--wait-strategy <strategy>', 'how to wait for jobs').choices(['auto', 'heartbeat', 'deferrable']),
    )
    .option('--expected-duration <duration>', 'expected job duration (auto picks deferrable from 2h)', parseDurationMs)
    .option('--poll-interval <duration>', 'first poll interval', parseDurationMs)
    .option('--max-poll-interval <duration>', 'longest poll interval', parseDurationMs)
    .option(
      '--max-status-duration <duration>',
      'surface a job that holds one status (e.g. paused) longer than this',
      parseDurationMs,
    )
    .addOption(
      new Option('--on-status-stuck <mode>', 'report it and keep waiting, or cancel the job and fail').choices([
        'report',
        'fail',
      ]),
    )
    .option(
      '--status-reports <n>',
      'status changes each job reports to the workflow, for live progress (4 history events each; default 1)',
      intArg(0, 20),
    )
    .option('--no-cancel-remote-job', 'leave the remote job running when the workflow is cancelled');
}

export function runOptions(cmd: Command): Command {
  return cmd
    .option('--workflow-id <id>', 'workflow id (default: generated)')
    .option('--no-wait', 'start and return the workflow id at once')
    .option('--follow', 'show live progress until the end')
    .option('--json', 'print the result as JSON');
}

export function pipelineOptions(cmd: Command): Command {
  return jobOptions(cmd)
    .requiredOption('--table-group <id>', 'table group to profile')
    .requiredOption('--test-suite <id>', 'test suite to run')
    .option('--order <kitchen/recipe/variation>', 'run this order first', orderArg)
    .option('--param <name=value>', 'runtime override for the order (repeatable)', paramArg)
    .option('--no-order-wait', 'do not wait for the order run to finish')
    .option('--min-score-percent <n>', 'gate: lowest acceptable test score, in percent (0-100)', numArg(0, 100))
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
      new Option('--test-generation <mode>', 'wait for follow-up test generation, or generate tests').choices([
        'auto',
        'wait',
        'generate',
        'skip',
      ]),
    );
}

export function jobInput(f: JobFlags): Record<string, unknown> {
  return {
    profile: f.profile,
    // A flag given is passed on even when 0 or empty, so the contract refuses it instead of the default taking over.
    ...(f.projectCode !== undefined ? { projectCode: f.projectCode } : {}),
    ...(f.waitStrategy ? { waitStrategy: f.waitStrategy } : {}),
    ...(f.expectedDuration !== undefined ? { expectedDurationMs: f.expectedDuration } : {}),
    ...(f.pollInterval !== undefined ? { pollIntervalMs: f.pollInterval } : {}),
    ...(f.maxPollInterval !== undefined ? { maxPollIntervalMs: f.maxPollInterval } : {}),
    ...(f.maxStatusDuration !== undefined ? { maxStatusDurationMs: f.maxStatusDuration } : {}),
    ...(f.onStatusStuck ? { onStatusStuck: f.onStatusStuck } : {}),
    ...(f.statusReports !== undefined ? { statusReports: f.statusReports } : {}),
    ...(f.cancelRemoteJob === false ? { cancelRemoteJob: false } : {}),
  };
}

export function pipelineInput(f: PipelineFlags): DataQualityPipelineInput {
  if (f.param && !f.order) throw new UsageError('--param: only with --order');
  return checked(DataQualityPipelineInput, {
    ...jobInput(f),
    tableGroupId: f.tableGroup,
    testSuiteId: f.testSuite,
    ...(f.order ? { order: { ...f.order, parameters: f.param ?? {}, wait: f.orderWait !== false } } : {}),
    gates: {
      ...(f.minScorePercent !== undefined ? { minScorePercent: f.minScorePercent } : {}),
      ...(f.maxFailed !== undefined ? { maxFailed: f.maxFailed } : {}),
      ...(f.maxErrors !== undefined ? { maxErrors: f.maxErrors } : {}),
      warningsAsFailures: Boolean(f.warningsAsFailures),
    },
    ...(f.onGateFailure ? { onGateFailure: f.onGateFailure } : {}),
    ...(f.testGeneration ? { testGeneration: f.testGeneration } : {}),
  });
}
