/**
 * Promotion of test definitions from one suite to another: export → preview → approval → apply. Also the plain
 * export (backups). Large files travel by claim check, so history holds references and counts, never the files.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  setHandler,
  uuid4,
} from '@temporalio/workflow';
import {
  PRESETS,
  approveUpdate,
  issueLines,
  previewQuery,
  rejectUpdate,
  type BlobRef,
  type ExportTestDefinitionsResult,
  type ImportOutcome,
  type PromoteTestDefinitionsResult,
  type PromotionPreview,
} from '../contract/index.js';
import {
  ApproveInput,
  ExportTestDefinitionsInput,
  PromoteTestDefinitionsInput,
  RejectInput,
  type ImportReport,
} from '../contract/promotion.js';
import { Tracker, parseWorkflowInput, transfer } from './shared.js';

type Decision = NonNullable<PromoteTestDefinitionsResult['decision']>;

/** Counts per action and reason, one line each, then the totals: the human-readable diff. */
export function diffLines(report: ImportReport, label: string): string[] {
  const lines = Object.entries(report.counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, n]) => `${label}: ${key.replace('/', ' (')}) ${n}`);
  const s = report.summary;
  lines.push(`${label}: ${s.created} created, ${s.updated} updated, ${s.skipped} skipped, ${s.deleted} deleted`);
  return lines;
}

function report(outcome: ImportOutcome): ImportReport {
  return {
    summary: outcome.summary,
    definitions: outcome.definitions,
    counts: outcome.counts,
    items: outcome.items,
    itemsRef: outcome.itemsRef,
  };
}

/** An update refusal callers can match on: a named, non-retryable failure (sending it again cannot help). */
const refuse = (type: 'InvalidInput' | 'PreviewNotReady' | 'AlreadyDecided' | 'StalePreview', message: string) =>
  ApplicationFailure.create({ type, message, nonRetryable: true });

export async function promoteTestDefinitions(raw: PromoteTestDefinitionsInput): Promise<PromoteTestDefinitionsResult> {
  const t = new Tracker('promoteTestDefinitions');
  let preview: PromotionPreview | null = null;
  let decision: Decision | null = null;

  setHandler(previewQuery, () => preview);
  setHandler(
    approveUpdate,
    (input) => {
      decision = {
        decision: 'approved',
        by: input.by ?? null,
        comment: input.comment ?? null,
        at: new Date().toISOString(),
      };
      return { decision: 'approved', previewId: input.previewId };
    },
    {
      validator: (input) => {
        const parsed = ApproveInput.safeParse(input);
        if (!parsed.success) throw refuse('InvalidInput', `invalid approval: ${issueLines(parsed.error).join('; ')}`);
        if (!preview) throw refuse('PreviewNotReady', 'there is no preview to approve yet');
        if (decision) throw refuse('AlreadyDecided', `the promotion is already ${decision.decision}`);
        if (parsed.data.previewId !== preview.previewId)
          throw refuse(
            'StalePreview',
            `stale approval: it names preview ${parsed.data.previewId}, but the current preview is ${preview.previewId}`,
          );
      },
    },
  );
  setHandler(
    rejectUpdate,
    (input) => {
      decision = { decision: 'rejected', by: input.by ?? null, comment: input.reason, at: new Date().toISOString() };
      return { decision: 'rejected', previewId: input.previewId ?? null };
    },
    {
      validator: (input) => {
        const parsed = RejectInput.safeParse(input);
        if (!parsed.success) throw refuse('InvalidInput', `invalid rejection: ${issueLines(parsed.error).join('; ')}`);
        if (decision) throw refuse('AlreadyDecided', `the promotion is already ${decision.decision}`);
        if (parsed.data.previewId && preview && parsed.data.previewId !== preview.previewId)
          throw refuse('StalePreview', `stale rejection: the current preview is ${preview.previewId}`);
      },
    },
  );

  return t.run(async () => {
    const input = parseWorkflowInput(PromoteTestDefinitionsInput, raw, 'promoteTestDefinitions');
    const policy = input.preset ? PRESETS[input.preset] : input.policy!;
    const target = input.targetTestSuiteId;

    let file: BlobRef;
    let exported: number | null = null;
    if ('testSuiteId' in input.source) {
      t.stage('exporting');
      const out = await transfer.exportTestDefinitions({
        profile: input.profile,
        testSuiteId: input.source.testSuiteId,
        filters: input.source.filters,
      });
      file = out.file;
      exported = out.definitions;
    } else {
      file = input.source.file;
    }

    t.stage('previewing');
    const previewed = await transfer.importTestDefinitions({
      profile: input.profile,
      testSuiteId: target,
      config: { mode: 'preview', ...policy },
      file,
    });
    const previewReport = report(previewed);
    preview = {
      ...previewReport,
      previewId: uuid4(),
      export: { file, definitions: exported ?? previewed.definitions },
      config: { mode: input.mode, ...policy },
      diff: diffLines(previewReport, 'preview'),
    };

    const finish = (status: 'rejected' | 'timed_out', d: Decision): PromoteTestDefinitionsResult => ({
      status,
      preview: preview!,
      applied: null,
      diff: preview!.diff,
      decision: d,
    });

    if (input.approval.required) {
      t.stage('awaiting approval');
      const decided = await condition(() => decision !== null, input.approval.timeoutMs);
      if (!decided) {
        t.stage('approval timed out');
        return finish('timed_out', { decision: 'timed_out', by: null, comment: null, at: new Date().toISOString() });
      }
      if (decision!.decision === 'rejected') {
        t.stage('rejected');
        return finish('rejected', decision!);
      }
    } else {
      decision = { decision: 'not_required', by: null, comment: null, at: new Date().toISOString() };
    }

    // Once the import is sent it cannot be called back: a cancel that arrives now lets it finish and report.
    t.stage('applying');
    let applied: ImportOutcome;
    try {
      applied = await CancellationScope.nonCancellable(() =>
        transfer.importTestDefinitions({
          profile: input.profile,
          testSuiteId: target,
          config: { mode: input.mode, ...policy },
          file,
        }),
      );
    } catch (err) {
      const cause = err instanceof ActivityFailure ? err.cause : undefined;
      if (cause instanceof ApplicationFailure && cause.type === 'StrictImportRejected')
        throw ApplicationFailure.create({
          type: 'StrictImportRejected',
          nonRetryable: true,
          message: `strict import into ${target} rejected; nothing was applied: ${cause.message}`,
          details: cause.details ?? [],
        });
      throw err;
    }
    const appliedReport = report(applied);
    return {
      status: 'applied',
      preview,
      applied: appliedReport,
      diff: [...preview.diff, ...diffLines(appliedReport, 'applied')],
      decision,
    };
  });
}

/** Exports a suite's test definitions (a backup), optionally writing the file under the worker's export directory. */
export async function exportTestDefinitions(raw: ExportTestDefinitionsInput): Promise<ExportTestDefinitionsResult> {
  const t = new Tracker('exportTestDefinitions');
  return t.run(async () => {
    const input = parseWorkflowInput(ExportTestDefinitionsInput, raw, 'exportTestDefinitions');
    t.stage('exporting');
    const out = await transfer.exportTestDefinitions({
      profile: input.profile,
      testSuiteId: input.testSuiteId,
      filters: input.filters,
    });
    let writtenTo: string | null = null;
    if (input.destination) {
      t.stage('writing file');
      writtenTo = await transfer.writeExportFile({ file: out.file, destination: input.destination });
    }
    return { file: out.file, definitions: out.definitions, writtenTo };
  });
}
