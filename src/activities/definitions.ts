/** Export and import of test definitions, through the claim-check store so large files stay out of history. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { Context, activityInfo, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { ExportFile, StrictImportRejected, type ImportResult } from '../api/index.js';
import { issueLines } from '../contract/issues.js';
import {
  BlobRef,
  ExportFilters,
  ImportConfig,
  ImportSummary,
  type ExportOutcome,
  type ImportOutcome,
} from '../contract/types.js';
import type { ActivityContext } from './context.js';
import { ImportOutcomeUnknown, InvalidInput, parseInput, translated } from './errors.js';
import { nothingOutstanding, recordingRefusal, writeOnce, type Phase } from '../exactly-once/index.js';
import { beat, rest } from './heartbeats.js';

export const ExportInput = z.object({
  profile: z.string().min(1).default('default'),
  testSuiteId: z.string().min(1),
  filters: ExportFilters.default({}),
});
export type ExportInput = z.input<typeof ExportInput>;

/** What the preview before an apply said it would do; a retried apply compares a fresh preview with it. */
const Expected = z.object({ summary: ImportSummary, counts: z.record(z.string(), z.number().int()) });
type Expected = z.infer<typeof Expected>;

export const ImportInput = z.object({
  profile: z.string().min(1).default('default'),
  testSuiteId: z.string().min(1),
  config: ImportConfig,
  /** The export file, by claim check. */
  file: BlobRef,
  /** For apply modes: the approved preview's summary and counts. @default a preview taken before the first attempt */
  expected: Expected.optional(),
});
export type ImportInput = z.input<typeof ImportInput>;

function countsOf(result: ImportResult): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of result.items)
    counts[`${item.action}/${item.reason}`] = (counts[`${item.action}/${item.reason}`] ?? 0) + item.tds.length;
  return counts;
}

/**
 * Heartbeat details of an apply: the preview it is checked against, and whether the last attempt was refused (the
 * refusing attempt's number: only the attempt right after it trusts it, see write-once.ts `Refused`).
 */
const ApplyPhase = z.object({
  phase: z.enum(['sending', 'rejected']),
  expected: Expected,
  sentAt: z.number().optional(),
  attempt: z.number().int().optional(),
});

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

export function definitionActivities(ctx: ActivityContext) {
  /** Keeps an import result small: items inline when they fit, otherwise in the store. */
  async function shrink(result: ImportResult, definitions: number): Promise<ImportOutcome> {
    const items = result.items.map((i) => ({
      action: i.action,
      reason: i.reason,
      tds: i.tds.map((t) => ({ idx: t.idx, target_id: t.target_id })),
    }));
    const summary = {
      created: result.summary.created,
      updated: result.summary.updated,
      skipped: result.summary.skipped,
      deleted: result.summary.deleted,
    };
    const inline = JSON.stringify(items).length <= ctx.inlineItemsMaxBytes;
    return {
      summary,
      definitions,
      counts: countsOf(result),
      items: inline ? items : null,
      itemsRef: inline ? null : await ctx.store().putJson(items),
      reconciled: false,
    };
  }

  /**
   * Applies once (write-once.ts). The mark is the preview the apply is checked against: the approved one, else one
   * taken now. What a lost apply did is read from a fresh preview, once the held request can no longer commit: the
   * same creates and deletes as the approved preview (or none to make) mean it did not land, none left to make mean
   * it landed, anything else cannot be told (ImportOutcomeUnknown).
   */
  async function applyOnce(
    input: z.output<typeof ImportInput>,
    file: ExportFile,
    apply: () => Promise<ImportOutcome>,
  ): Promise<ImportOutcome> {
    const client = ctx.profile(input.profile).client;
    const signal = Context.current().cancellationSignal;
    const recorded: unknown = activityInfo().heartbeatDetails;
    const prior = ApplyPhase.safeParse(recorded).data;
    let expected = prior?.expected ?? input.expected;
    const preview = () =>
      client.testDefinitions.import(input.testSuiteId, { ...input.config, mode: 'preview' }, file, { signal });
    const outstanding = { value: false };
    const record = (phase: Phase<Expected>) =>
      beat(
        phase.phase === 'sending'
          ? { phase: 'sending', sentAt: phase.sentAt, expected: phase.mark }
          : { ...phase, expected },
      );
    return recordingRefusal(outstanding, record, () =>
      writeOnce<Expected, ImportOutcome>(
        {
          // No preview to compare with: no earlier attempt got as far as its send (the record precedes it).
          prior:
            !expected || nothingOutstanding(recorded)
              ? { mayHaveSent: false }
              : {
                  mayHaveSent: true,
                  sending: prior?.sentAt === undefined ? undefined : { sentAt: prior.sentAt, mark: expected },
                },
          mark: async () => {
            if (!expected) {
              const before = await preview();
              expected = { summary: before.summary, counts: countsOf(before) };
            }
            return expected;
          },
          send: apply,
          find: async (sending) => {
            const approved = sending?.mark ?? expected;
            // Never without one (an attempt that may have sent had a preview): "not landed" would apply again.
            if (!approved)
              throw new ImportOutcomeUnknown(
                `an apply into ${input.testSuiteId} may have landed, with no preview to compare`,
              );
            // With no send time recorded (an attempt that died before its heartbeat reached Temporal), it may have
            // been sent a moment ago: the whole window.
            const settleLeft = (sending?.sentAt ?? Date.now()) + ctx.submitSettleMs - Date.now();
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
            return {
              summary,
              definitions: file.definitions.length,
              counts,
              items: null,
              itemsRef: null,
              reconciled: true,
            };
          },
          record,
        },
        outstanding,
      ),
    );
  }

  return {
    /** Writes a stored export file to `destination`, relative to the worker's export directory (never outside it). */
    writeExportFile: async (raw: { file: unknown; destination: string }): Promise<string> => {
      const input = parseInput(z.object({ file: BlobRef, destination: z.string().min(1) }), raw, 'writeExportFile');
      return translated(async () => {
        if (!ctx.exportDir) throw new InvalidInput('this worker has no export directory (DATAOPS_EXPORT_DIR)');
        const base = resolve(ctx.exportDir);
        const target = resolve(base, input.destination);
        const rel = relative(base, target);
        if (rel.startsWith('..') || isAbsolute(rel) || rel === '')
          throw new InvalidInput(`destination '${input.destination}' is outside the export directory`);
        const file = await ctx.store().getJson(input.file);
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, `${JSON.stringify(file, null, 2)}\n`);
        log.info('export file written', { path: target });
        return target;
      });
    },

    /** Exports a suite's definitions into the store; returns the claim check and the count. */
    exportTestDefinitions: async (raw: ExportInput): Promise<ExportOutcome> => {
      const input = parseInput(ExportInput, raw, 'exportTestDefinitions');
      return translated(async () => {
        const file = await ctx.profile(input.profile).client.testDefinitions.export(input.testSuiteId, input.filters, {
          signal: Context.current().cancellationSignal,
        });
        const ref = await ctx.store().putJson(file);
        log.info('test definitions exported', {
          testSuiteId: input.testSuiteId,
          definitions: file.definitions.length,
          bytes: ref.bytes,
        });
        return { file: ref, definitions: file.definitions.length, version: file.version };
      });
    },

    /**
     * Imports an export file (by claim check) with the given config. A strict rejection fails non-retryably with
     * type StrictImportRejected and the would-be result (summary, counts, items or their reference) as details.
     */
    importTestDefinitions: async (raw: ImportInput): Promise<ImportOutcome> => {
      const input = parseInput(ImportInput, raw, 'importTestDefinitions');
      return translated(async () => {
        const stored = await ctx.store().getJson(input.file);
        const file = ExportFile.safeParse(stored);
        if (!file.success)
          throw new InvalidInput(
            `the export file ${input.file.ref} is not valid: ${issueLines(file.error).join('; ')}`,
          );
        const client = ctx.profile(input.profile).client;
        const signal = Context.current().cancellationSignal;
        const definitions = file.data.definitions.length;
        const apply = async () => {
          const result = await client.testDefinitions.import(input.testSuiteId, input.config, file.data, { signal });
          log.info('test definitions imported', {
            testSuiteId: input.testSuiteId,
            mode: input.config.mode,
            ...result.summary,
          });
          return shrink(result, definitions);
        };
        try {
          return input.config.mode === 'preview' ? await apply() : await applyOnce(input, file.data, apply);
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
      });
    },
  };
}
