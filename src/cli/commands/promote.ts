/**
 * The promotion commands: `promote` (export → preview → approval → apply), `approve` and `reject`.
 */
import { userInfo } from 'node:os';
import { type Command, Option } from 'commander';
import {
  APPROVAL_TIMEOUT_MS,
  PromoteTestDefinitionsInput,
  WORKFLOW_TYPES,
  approveUpdate,
  rejectUpdate,
  type PromoteTestDefinitionsResult,
} from '../../contract/index.js';
import { formatDecisionAsked, formatPromotion, promotionExit } from '../format.js';
import { checked, profileOption, runOptions, type RunFlags } from '../inputs.js';
import { UsageError, parseDurationMs, positiveDurationMs } from '../parsers.js';
import { waitForPreview } from '../query.js';
import { durationText } from '../schedule-spec.js';
import type { CommandContext } from '../runner.js';

/**
 * Who decides, unless `--by` says: the user the CLI runs as (as git names an author), so that the decision on record
 * names someone. None where the system has no name for it (a container's numeric user).
 */
function runningAs(): string | undefined {
  try {
    return userInfo().username || undefined;
  } catch {
    return undefined;
  }
}

/** How long `promote` waits for the preview before it leaves the promotion running and says how to find it. */
const PREVIEW_WAIT_MS = 5 * 60_000;

interface PromoteFlags extends RunFlags {
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
  previewWait: number;
  profile: string;
}

/** The promotion input from the flags: a preset or all three policies, never both. */
function promotionInput(f: PromoteFlags) {
  const explicit = [f.onMatch, f.onNew, f.onAbsence].filter(Boolean).length;
  if (f.preset && explicit)
    throw new UsageError('--preset: give a preset or --on-match/--on-new/--on-absence, not both');
  if (!f.preset && explicit !== 3)
    throw new UsageError('--preset: required, unless all of --on-match, --on-new and --on-absence are given');
  return checked(PromoteTestDefinitionsInput, {
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
    approval: { required: f.approval, ...(f.approvalTimeout !== undefined ? { timeoutMs: f.approvalTimeout } : {}) },
  });
}

export function registerPromoteCommands(program: Command, { starter: s, action }: CommandContext): void {
  profileOption(
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
      .option(
        '--approval-timeout <duration>',
        `how long to wait for an approval (default: ${durationText(APPROVAL_TIMEOUT_MS)})`,
        parseDurationMs,
      )
      .addOption(
        // Shown as a duration, as the flag takes it: "(default: 300000)" read as 300,000 of some unit.
        new Option(
          '--preview-wait <duration>',
          'how long this command waits for the preview (the promotion goes on after it)',
        )
          .argParser(positiveDurationMs)
          .default(PREVIEW_WAIT_MS, durationText(PREVIEW_WAIT_MS)),
      ),
  ).action(
    action(async (f: PromoteFlags) => {
      const handle = await s().start(WORKFLOW_TYPES.promoteTestDefinitions, promotionInput(f), f);
      if (f.approval && f.wait !== false && !f.follow) {
        // A promotion that fails or is cancelled before its preview reads as any other workflow's end, and so does one
        // decided (or timed out) before this command saw its preview.
        const waiting = () => waitForPreview(handle, f.previewWait, s().config.temporal.taskQueue);
        const preview = await s()
          .interruptible(handle, waiting)
          .catch((err: unknown) => {
            s().exitCode = s().failure(err, f);
          });
        if (preview === undefined) return;
        if (preview === null) {
          await s().finish<PromoteTestDefinitionsResult>(handle, f, formatPromotion, promotionExit);
          return;
        }
        if (f.json) s().print(JSON.stringify(preview, null, 2));
        else s().print(formatDecisionAsked(handle.workflowId, preview));
        return;
      }
      await s().finish<PromoteTestDefinitionsResult>(handle, f, formatPromotion, promotionExit);
    }),
  );

  program
    .command('approve <workflowId>')
    .description('approve a waiting promotion; --preview-id must name the preview you reviewed')
    .requiredOption('--preview-id <id>', 'the preview being approved (from the preview)')
    .option('--by <name>', 'who approves (default: the user this runs as)')
    .option('--comment <text>', 'comment')
    .action(
      action(async (workflowId: string, f: { previewId: string; by?: string; comment?: string }) => {
        const handle = (await s().connect()).workflow.getHandle(workflowId);
        const by = f.by ?? runningAs();
        await s().update(
          handle,
          WORKFLOW_TYPES.promoteTestDefinitions,
          () =>
            handle.executeUpdate(approveUpdate, {
              args: [{ previewId: f.previewId, ...(by ? { by } : {}), ...(f.comment ? { comment: f.comment } : {}) }],
            }),
          (ack) => `${ack.decision}: preview ${ack.previewId}`,
        );
      }),
    );

  program
    .command('reject <workflowId>')
    .description('reject a waiting promotion; nothing is applied')
    .requiredOption('--reason <text>', 'why')
    .option('--by <name>', 'who rejects (default: the user this runs as)')
    .option('--preview-id <id>', 'the preview being rejected')
    .action(
      action(async (workflowId: string, f: { reason: string; by?: string; previewId?: string }) => {
        const handle = (await s().connect()).workflow.getHandle(workflowId);
        const by = f.by ?? runningAs();
        await s().update(
          handle,
          WORKFLOW_TYPES.promoteTestDefinitions,
          () =>
            handle.executeUpdate(rejectUpdate, {
              args: [{ reason: f.reason, ...(by ? { by } : {}), ...(f.previewId ? { previewId: f.previewId } : {}) }],
            }),
          (ack) => ack.decision,
        );
      }),
    );
}
