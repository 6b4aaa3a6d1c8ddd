/** Export and import of test definitions, through the claim-check store so large files stay out of history. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { ExportFile, StrictImportRejected, type ImportResult } from '../api/index.js';
import { issueLines } from '../contract/issues.js';
import { BlobRef, ExportFilters, ImportConfig, type ExportOutcome, type ImportOutcome } from '../contract/types.js';
import type { ActivityContext } from './context.js';
import { InvalidInput, parseInput, translated } from './errors.js';

export const ExportInput = z.object({
  profile: z.string().min(1).default('default'),
  testSuiteId: z.string().min(1),
  filters: ExportFilters.default({}),
});
export type ExportInput = z.input<typeof ExportInput>;

export const ImportInput = z.object({
  profile: z.string().min(1).default('default'),
  testSuiteId: z.string().min(1),
  config: ImportConfig,
  /** The export file, by claim check. */
  file: BlobRef,
});
export type ImportInput = z.input<typeof ImportInput>;

function countsOf(result: ImportResult): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of result.items)
    counts[`${item.action}/${item.reason}`] = (counts[`${item.action}/${item.reason}`] ?? 0) + item.tds.length;
  return counts;
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
    };
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
        try {
          const result = await ctx
            .profile(input.profile)
            .client.testDefinitions.import(input.testSuiteId, input.config, file.data, {
              signal: Context.current().cancellationSignal,
            });
          log.info('test definitions imported', {
            testSuiteId: input.testSuiteId,
            mode: input.config.mode,
            ...result.summary,
          });
          return await shrink(result, file.data.definitions.length);
        } catch (err) {
          if (!(err instanceof StrictImportRejected)) throw err;
          const parsed = z.object({ summary: z.any(), items: z.array(z.any()) }).safeParse(err.importResult);
          const wouldBe = parsed.success ? await shrink(parsed.data, file.data.definitions.length) : null;
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
