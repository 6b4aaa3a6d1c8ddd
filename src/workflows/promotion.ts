/**
 * Promotion of test definitions from one suite to another: export → preview → approval → apply. Also the plain
 * export (backups). Large files travel by claim check, so history holds references and counts, never the files.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  log,
  setHandler,
  uuid4,
} from '@temporalio/workflow';
import type {
  BlobRef,
  ExportTestDefinitionsResult,
  ImportOutcome,
  PromoteTestDefinitionsResult,
  PromotionPreview,
} from '../contract/index.js';
import { AWAITING_APPROVAL, approveUpdate, previewQuery, rejectUpdate } from '../contract/messages.js';
import { PRESETS } from '../contract/presets.js';
import type { ExportTestDefinitionsInput, ImportReport, PromoteTestDefinitionsInput } from '../contract/promotion.js';
import { checkedInput } from './input.js';
import type * as InSandbox from './input-in-sandbox.js';
import { Tracker, activitiesWithin } from './shared.js';
import { openingSearch } from '../contract/search-attributes.js';
import { APPLY_ACTIVITY, askSubmitter } from '../exactly-once/workflow/index.js';

type Decision = NonNullable<PromoteTestDefinitionsResult['decision']>;

/** Counts per action and reason, one line each, then the totals: the human-readable diff. */
function diffLines(report: ImportReport, label: string): string[] {
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
    reconciled: outcome.reconciled,
  };
}

/**
 * Whether two previews say the same: summary and counts per action and reason, and the items, inline or by the hash of
 * the stored items. Equal counts can hide different items (another definition locked, another target matched), so an
 * approval binds the content it was given.
 */
function samePreview(a: ImportReport, b: ImportReport): boolean {
  const counts = (r: ImportReport) =>
    JSON.stringify([r.summary, Object.entries(r.counts).sort(([x], [y]) => x.localeCompare(y))]);
  const items = (r: ImportReport) =>
    JSON.stringify(r.items?.map((i) => [i.action, i.reason, i.tds.map((d) => [d.idx, d.target_id])]));
  if (counts(a) !== counts(b)) return false;
  if (a.items !== null && b.items !== null) return items(a) === items(b);
  // Stored by reference: the same content only when both are stored, under one hash.
  return a.itemsRef !== null && a.itemsRef !== undefined && a.itemsRef.sha256 === b.itemsRef?.sha256;
}

/** An update refusal callers can match on: a named, non-retryable failure (sending it again cannot help). */
const refuse = (type: 'InvalidInput' | 'PreviewNotReady' | 'AlreadyDecided' | 'StalePreview', message: string) =>
  ApplicationFailure.create({ type, message, nonRetryable: true });

async function promoteTestDefinitions(raw: PromoteTestDefinitionsInput): Promise<PromoteTestDefinitionsResult> {
  const t = new Tracker('promoteTestDefinitions');
  let preview: PromotionPreview | null = null;
  let decision: Decision | null = null;
  // The approval and rejection are checked here (update validators run in the workflow), with schemas loaded for
  // this workflow only. They load within the first activation, before any preview can exist.
  let checks: typeof InSandbox | null = null;
  void import(/* webpackMode: "eager" */ './input-in-sandbox.js').then((m) => (checks = m));

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
        if (!checks) throw refuse('PreviewNotReady', 'there is no preview to approve yet');
        const parsed = checks.checkApproval(input);
        if (!parsed.ok) throw refuse('InvalidInput', `invalid approval: ${parsed.problems.join('; ')}`);
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
        if (!checks) throw refuse('PreviewNotReady', 'the promotion is still starting; send the rejection again');
        const parsed = checks.checkRejection(input);
        if (!parsed.ok) throw refuse('InvalidInput', `invalid rejection: ${parsed.problems.join('; ')}`);
        if (decision) throw refuse('AlreadyDecided', `the promotion is already ${decision.decision}`);
        if (parsed.data.previewId && preview && parsed.data.previewId !== preview.previewId)
          throw refuse('StalePreview', `stale rejection: the current preview is ${preview.previewId}`);
      },
    },
  );

  return t.run(async () => {
    const input = await checkedInput('promoteTestDefinitions', raw, t, arguments.length);
    const policy = input.preset ? PRESETS[input.preset] : input.policy!;
    const target = input.targetTestSuiteId;
    const fromSuite = 'testSuiteId' in input.source;
    t.search.set(openingSearch('promoteTestDefinitions', input));

    let file: BlobRef;
    let exported: number | null = null;
    if ('testSuiteId' in input.source) {
      t.stage('exporting');
      const out = await activitiesWithin(input.outageToleranceMs).transfer.exportTestDefinitions({
        profile: input.profile,
        testSuiteId: input.source.testSuiteId,
        filters: input.source.filters,
      });
      file = out.file;
      exported = out.definitions;
    } else {
      file = input.source.file;
    }

    const acts = activitiesWithin(input.outageToleranceMs).transfer;
    const config = { mode: input.mode, ...policy };
    const takePreview = async (): Promise<PromotionPreview> => {
      const previewed = report(
        await acts.importTestDefinitions({
          profile: input.profile,
          testSuiteId: target,
          config: { ...config, mode: 'preview' },
          file,
        }),
      );
      return {
        ...previewed,
        previewId: uuid4(),
        export: { file, definitions: exported ?? previewed.definitions },
        config,
        diff: diffLines(previewed, 'preview'),
      };
    };
    t.stage('previewing');
    if (fromSuite) t.search.set({ stage: 'previewing' });
    preview = await takePreview();
    let previews = 1;

    const finish = (status: 'rejected' | 'timed_out', d: Decision): PromoteTestDefinitionsResult => ({
      status,
      preview: preview!,
      applied: null,
      previews,
      diff: preview!.diff,
      decision: d,
    });

    if (!input.approval.required)
      decision = { decision: 'not_required', by: null, comment: null, at: new Date().toISOString() };
    while (input.approval.required) {
      t.stage(AWAITING_APPROVAL);
      t.search.set({ stage: 'awaiting_approval' });
      const decided = await condition(() => decision !== null, input.approval.timeoutMs);
      if (!decided) {
        t.stage('approval timed out');
        t.search.set({ verdict: 'timed_out' });
        return finish('timed_out', { decision: 'timed_out', by: null, comment: null, at: new Date().toISOString() });
      }
      if (decision!.decision === 'rejected') {
        t.stage('rejected');
        t.search.set({ verdict: 'rejected' });
        return finish('rejected', decision!);
      }
      // The approval may come a day later: apply only what the approver saw. A target that changed meanwhile (new,
      // removed or locked definitions) gets a new preview, and approval is asked again.
      t.stage('re-checking the preview');
      const fresh = await takePreview();
      previews++;
      if (samePreview(fresh, preview)) break;
      log.warn('the target changed since the approved preview; asking for approval again', {
        approved: preview.previewId,
        fresh: fresh.previewId,
      });
      preview = fresh;
      decision = null;
    }

    // Once the import is sent it cannot be called back: a cancel that arrives now lets it finish and report. It goes
    // through the suite's submitter; a lost answer is told by a fresh preview against this one (activities/apply.ts).
    t.stage('applying');
    t.search.set({ stage: 'applying' });
    const approved = preview;
    let applied: ImportOutcome;
    try {
      applied = await CancellationScope.nonCancellable(() =>
        askSubmitter(
          t,
          APPLY_ACTIVITY,
          {
            profile: input.profile,
            testSuiteId: target,
            config,
            file,
            expected: { summary: approved.summary, counts: approved.counts },
          },
          { outageToleranceMs: input.outageToleranceMs },
        ),
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
    t.search.set({ verdict: 'applied' });
    return {
      status: 'applied',
      preview,
      applied: appliedReport,
      previews,
      diff: [
        ...preview.diff,
        ...diffLines(
          appliedReport,
          appliedReport.reconciled ? 'applied (answer lost; counts from the preview)' : 'applied',
        ),
      ],
      decision,
    };
  });
}

/** Exports a suite's test definitions (a backup), optionally writing the file under the worker's export directory. */
async function exportTestDefinitions(raw: ExportTestDefinitionsInput): Promise<ExportTestDefinitionsResult> {
  const t = new Tracker('exportTestDefinitions');
  return t.run(async () => {
    const input = await checkedInput('exportTestDefinitions', raw, t, arguments.length);
    t.stage('exporting');
    t.search.set(openingSearch('exportTestDefinitions', input));
    const out = await activitiesWithin(input.outageToleranceMs).transfer.exportTestDefinitions({
      profile: input.profile,
      testSuiteId: input.testSuiteId,
      filters: input.filters,
    });
    let writtenTo: string | null = null;
    if (input.destination) {
      t.stage('writing file');
      writtenTo = await activitiesWithin(input.outageToleranceMs).transfer.writeExportFile({
        file: out.file,
        destination: input.destination,
      });
    }
    return { file: out.file, definitions: out.definitions, writtenTo };
  });
}

/** Registered under their contract names only (index.ts registers every export). */
export {
  promoteTestDefinitions as 'dataops.promoteTestDefinitions',
  exportTestDefinitions as 'dataops.exportTestDefinitions',
};
