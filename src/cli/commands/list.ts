/**
 * `list`: this project's runs, found by what they are about (the search attributes the workflows set: table group,
 * test suite, stage, verdict) and by their status; newest first.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { SEARCH_ATTRIBUTES as SA, STAGES, VERDICTS } from '../../contract/search-attributes.js';
import { WORKFLOW_TYPES, ownName } from '../../contract/index.js';
import { table } from '../format.js';
import { intArg } from '../parsers.js';
import type { CommandContext } from '../runner.js';

const TYPES = Object.values(WORKFLOW_TYPES);
const STATUSES = ['Running', 'Completed', 'Failed', 'Canceled', 'Terminated', 'TimedOut', 'ContinuedAsNew'] as const;

export interface ListFilters {
  tableGroup?: string;
  testSuite?: string;
  stage?: string;
  verdict?: string;
  status?: string;
  type?: string;
}

const ID = /^[\w.:@/-]+$/;

/** An id flag: letters, digits and `. : @ / - _` only, so a quote (an injected condition) is refused as a usage error. */
const id = (value: string): string => {
  if (!ID.test(value)) throw new InvalidArgumentError(`expected an id (letters, digits, . : @ / - _), got '${value}'`);
  return value;
};

/** `--type`: a workflow type by its own name (`runOrder`, as the contract names it) or its registered one. */
export const workflowTypeArg = (value: string): string => {
  const type = TYPES.find((t) => t === value || ownName(t) === value);
  if (!type) throw new InvalidArgumentError(`expected one of ${TYPES.map(ownName).join(', ')}`);
  return type;
};

/** `--status`: an execution status in any case (`running`, as `temporal workflow list` prints it, or `Running`). */
export const statusArg = (value: string): string => {
  const status = STATUSES.find((x) => x.toLowerCase() === value.toLowerCase());
  if (!status) throw new InvalidArgumentError(`expected one of ${STATUSES.join(', ')}`);
  return status;
};

/** A value for the visibility query (checked again here, for callers of listQuery). */
function literal(value: string): string {
  return `"${id(value)}"`;
}

/** The visibility query for the filters: always limited to this project's workflow types. */
export function listQuery(f: ListFilters): string {
  const types = f.type ? [f.type] : TYPES;
  const where = [`WorkflowType IN (${types.map((t) => literal(t)).join(', ')})`];
  if (f.tableGroup) where.push(`${SA.tableGroupId.name} = ${literal(f.tableGroup)}`);
  if (f.testSuite) where.push(`${SA.testSuiteId.name} = ${literal(f.testSuite)}`);
  if (f.stage) where.push(`${SA.stage.name} = ${literal(f.stage)}`);
  if (f.verdict) where.push(`${SA.verdict.name} = ${literal(f.verdict)}`);
  if (f.status) where.push(`ExecutionStatus = ${literal(f.status)}`);
  return where.join(' AND ');
}

export function registerListCommand(program: Command, { starter: s, action }: CommandContext): void {
  program
    .command('list')
    .description("list this project's runs, newest first, by what they are about (the search attributes)")
    .option('--table-group <id>', 'runs about this table group', id)
    .option('--test-suite <id>', 'runs about this test suite (pipelines, test runs; promotions: the target)', id)
    .addOption(
      new Option(
        '--stage <stage>',
        'the last stage reached (a closed run keeps its own: --status Running for runs still there)',
      ).choices(STAGES),
    )
    .addOption(new Option('--verdict <verdict>', "the gates' or the promotion's outcome").choices(VERDICTS))
    .option('--status <status>', `execution status: ${STATUSES.join(', ')}`, statusArg)
    .option('--type <workflowType>', `one workflow type: ${TYPES.map(ownName).join(', ')}`, workflowTypeArg)
    .option('--limit <n>', 'at most this many', intArg(1, 1000), 20)
    .option('--json', 'print as JSON')
    .action(
      action(async (f: ListFilters & { limit: number; json?: boolean }) => {
        const query = listQuery(f);
        const rows = [];
        for await (const w of (await s().connect()).workflow.list({ query, pageSize: Math.min(f.limit, 100) })) {
          const sa = w.typedSearchAttributes;
          rows.push({
            workflowId: w.workflowId,
            type: w.type,
            status: w.status.name,
            startTime: w.startTime.toISOString(),
            closeTime: w.closeTime?.toISOString() ?? null,
            tableGroupId: sa.get(SA.tableGroupId) ?? null,
            testSuiteId: sa.get(SA.testSuiteId) ?? null,
            stage: sa.get(SA.stage) ?? null,
            verdict: sa.get(SA.verdict) ?? null,
          });
          if (rows.length >= f.limit) break;
        }
        if (f.json) return s().print(JSON.stringify(rows, null, 2));
        if (!rows.length) return s().print(`no runs match: ${query}`);
        for (const r of rows)
          s().print(
            table([
              ['workflow', `${r.type} ${r.workflowId}`],
              // A closed run: when it closed (its status has held since), and when it started.
              [
                'status',
                r.closeTime
                  ? `${r.status} at ${r.closeTime}, started ${r.startTime}`
                  : `${r.status} since ${r.startTime}`,
              ],
              ['about', [r.tableGroupId, r.testSuiteId].filter(Boolean).join(', ') || null],
              // A closed run's stage is where it ended ("applying" for an applied promotion), not where it is.
              [r.closeTime ? 'last stage' : 'stage', r.stage],
              ['verdict', r.verdict],
            ]) + '\n',
          );
      }),
    );
}
