/**
 * An import's apply, as its test suite's submitter sends it (src/exactly-once/workflow/submitter.ts): once, through the
 * one state machine (src/exactly-once/write-once.ts), one apply in flight per suite. The mark is the preview the apply
 * is checked against (the approved one, else one taken at the send); what a lost apply did is read from a fresh
 * preview, which only our own apply can have changed meanwhile but for other clients of the suite.
 */
import { log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { ExportFile, StrictImportRejected, type ImportResult } from '../api/index.js';
import { issueLines } from '../contract/issues.js';
import { BlobRef, ImportConfig, ImportSummary, type ImportOutcome } from '../contract/types.js';
import type { ActivityContext } from './context.js';
import { ImportOutcomeUnknown, InvalidInput, parseInput, translated } from './errors.js';
import { recordingRefusal, sendSignal, writeOnce, type Prior, type SendFor } from '../exactly-once/index.js';
import { SentFor } from './job-inputs.js';
import { rest } from './heartbeats.js';

/** What the preview before an apply said it would do; a lost apply is told by a fresh preview against it. */
export const Expected = z.object({ summary: ImportSummary, counts: z.record(z.string(), z.number().int()) });
type Expected = z.infer<typeof Expected>;

export const ImportInput = z.object({
  profile: z.string().min(1).default('default'),
  testSuiteId: z.string().min(1),
  config: ImportConfig,
  /** The export file, by claim check. */
  file: BlobRef,
  /** For apply modes: the approved preview's summary and counts. @default a preview taken just before the send */
  expected: Expected.optional(),
  /** The task queue an apply's submitter runs on (its workflow's), where it starts if none runs. @default this activity's */
  submitterQueue: z.string().min(1).optional(),
  requester: SentFor.requester,
});
export type ImportInput = z.input<typeof ImportInput>;

export function countsOf(result: ImportResult): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of result.items)
    counts[`${item.action}/${item.reason}`] = (counts[`${item.action}/${item.reason}`] ?? 0) + item.tds.length;
  return counts;
}

/** A preview's summary and counts: what an apply is checked against. */
const expectedOf = ({ summary, counts }: ImportOutcome): Expected => ({ summary, counts });

const describe = (s: ImportSummary) =>
  `${s.created} to create, ${s.updated} to update, ${s.skipped} to skip, ${s.deleted} to delete`;

/**
 * Whether an apply landed, from a fresh preview: `none` when the preview still says the same creates and deletes (or
 * when there were none, so applying again changes nothing new), `all` when nothing remains to create or delete,
 * `partly` for anything else.
 */
export function compareWithExpected(expected: ImportSummary, now: ImportSummary): 'none' | 'all' | 'partly' {
  if (now.created === expected.created && now.deleted === expected.deleted) return 'none';
  if (now.created === 0 && now.deleted === 0) return 'all';
  return 'partly';
}

/** Imports: reading the stored file, keeping a result small, and the apply itself. */
export function importWrites(ctx: ActivityContext) {
  /** The stored export file, checked: a damaged one is bad input, failed at once. */
  async function exportFile(ref: z.infer<typeof BlobRef>): Promise<ExportFile> {
    const file = ExportFile.safeParse(await ctx.store().getJson(ref));
    if (!file.success)
      throw new InvalidInput(`the export file ${ref.ref} is not valid: ${issueLines(file.error).join('; ')}`);
    return file.data;
  }

  /** Keeps an import result small: items inline when they fit, otherwise in the store. */
  async function shrink(result: ImportResult, definitions: number): Promise<ImportOutcome> {
    const items = result.items.map((i) => ({
      action: i.action,
      reason: i.reason,
      tds: i.tds.map((t) => ({ idx: t.idx, target_id: t.target_id })),
    }));
    const { created, updated, skipped, deleted } = result.summary;
    const inline = JSON.stringify(items).length <= ctx.inlineItemsMaxBytes;
    return {
      summary: { created, updated, skipped, deleted },
      definitions,
      counts: countsOf(result),
      items: inline ? items : null,
      itemsRef: inline ? null : await ctx.store().putJson(items),
      reconciled: false,
    };
  }

  /** Runs an import in `mode` (the input's, unless given); a strict rejection fails with its would-be result. */
  async function importOnce(
    input: z.output<typeof ImportInput>,
    file: ExportFile,
    signal: AbortSignal,
    mode = input.config.mode,
    leaveBy?: number,
  ): Promise<ImportOutcome> {
    const client = ctx.profile(input.profile).client;
    const definitions = file.definitions.length;
    try {
      const result = await client.testDefinitions.import(input.testSuiteId, { ...input.config, mode }, file, {
        signal,
        ...(leaveBy === undefined ? {} : { leaveBy }),
      });
      log.info('test definitions imported', { testSuiteId: input.testSuiteId, mode, ...result.summary });
      return await shrink(result, definitions);
    } catch (err) {
      if (!(err instanceof StrictImportRejected)) throw err;
      const parsed = z.object({ summary: z.any(), items: z.array(z.any()) }).safeParse(err.importResult);
      const wouldBe = parsed.success ? await shrink(parsed.data, definitions) : null;
      throw ApplicationFailure.create({
        type: err.name,
        message: err.message,
        nonRetryable: true,
        details: [{ status: err.status ?? null, code: err.code ?? null, importResult: wouldBe }],
      });
    }
  }

  /**
   * What a suite's submitter sends an apply with, for its requester (send-in-turn.ts): once. Not sent once its
   * workflow is gone; its workflow's cancel lets it go (an approved apply is made whatever a cancel says, and told).
   */
  const applySender: SendFor = async (raw, turn) => {
    const input = parseInput(ImportInput, raw, 'importTestDefinitions');
    const { prior } = turn;
    return translated(async () => {
      const file = await exportFile(input.file);
      const signal = sendSignal(true);
      let expected = input.expected;
      const preview = () => importOnce(input, file, signal, 'preview');
      const outstanding = { value: prior.mayHaveSent };
      return recordingRefusal(outstanding, turn.record, () =>
        writeOnce<Expected, ImportOutcome>(
          {
            prior: prior as Prior<Expected>,
            mark: async () => (expected ??= expectedOf(await preview())),
            send: (leaveBy) => importOnce(input, file, signal, input.config.mode, leaveBy),
            find: async (sending) => {
              const approved = Expected.safeParse(sending.mark).data ?? expected;
              // Never without one (an attempt that may have sent had a preview): "not landed" would apply again.
              if (!approved)
                throw new ImportOutcomeUnknown(
                  `an apply into ${input.testSuiteId} may have landed, with no preview to compare`,
                );
              const settleLeft = sending.sentAt + ctx.submitSettleMs - Date.now();
              if (settleLeft > 0) await rest(settleLeft);
              const now = await preview();
              const landed = compareWithExpected(approved.summary, now.summary);
              if (landed === 'none') return undefined;
              if (landed === 'partly')
                throw new ImportOutcomeUnknown(
                  `an apply into ${input.testSuiteId} lost its answer, and a fresh preview (${describe(now.summary)}) matches neither the approved one (${describe(approved.summary)}) nor its full application; check the suite before importing again`,
                );
              log.warn('the apply landed; its answer was lost', { testSuiteId: input.testSuiteId });
              const { summary, counts } = approved;
              const definitions = file.definitions.length;
              return { summary, definitions, counts, items: null, itemsRef: null, reconciled: true };
            },
            record: turn.record,
          },
          outstanding,
        ),
      );
    });
  };

  return { exportFile, importOnce, applySender };
}
