/** Export and import of test definitions, through the claim-check store so large files stay out of history. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { Context, log } from '@temporalio/activity';
import { z } from 'zod';
import { BlobRef, ExportFilters, type ExportOutcome, type ImportOutcome } from '../contract/types.js';
import type { ActivityContext } from './context.js';
import { InvalidInput, parseInput, translated } from './errors.js';
import {
  applySubmitterId,
  deploymentsOf,
  outageToleranceOf,
  submitterFor,
  throughSubmitter,
  type Write,
} from '../exactly-once/index.js';
import { ImportInput, importWrites } from './apply.js';

export { ImportInput } from './apply.js';

export const ExportInput = z.object({
  profile: z.string().min(1).default('default'),
  testSuiteId: z.string().min(1),
  filters: ExportFilters.default({}),
});
export type ExportInput = z.input<typeof ExportInput>;

/** The submitter of a suite's applies on the profile's deployment (the `/api/v1` base, where imports go). */
const applySubmitterOf = (ctx: ActivityContext) => (input: z.output<typeof ImportInput>) => {
  const { baseUrl, apiBaseUrl } = ctx.profile(input.profile).client;
  const deployment = deploymentsOf(baseUrl, apiBaseUrl).jobs;
  return submitterFor(input, (taskQueue) => applySubmitterId(taskQueue, deployment, input.testSuiteId));
};

/** An apply's write (through-submitter.ts): sent by its suite's submitter (apply.ts), and that submitter. */
export const applyWrite = (ctx: ActivityContext): Write => ({
  send: importWrites(ctx).applySender,
  submitterOf: (raw) => applySubmitterOf(ctx)(parseInput(ImportInput, raw, 'importTestDefinitions')),
});

export function definitionActivities(ctx: ActivityContext) {
  const { exportFile, importOnce } = importWrites(ctx);
  const submitterOf = applySubmitterOf(ctx);

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
     * Imports an export file (by claim check) with the given config. A preview is read at once; an apply goes through
     * its suite's submitter, one apply in flight per suite, sent once (apply.ts). A strict rejection fails
     * non-retryably with type StrictImportRejected and the would-be result (summary, counts, items or their reference)
     * as details.
     */
    importTestDefinitions: async (raw: ImportInput): Promise<ImportOutcome> => {
      const input = parseInput(ImportInput, raw, 'importTestDefinitions');
      return translated(async () => {
        // Read before it waits its turn: a damaged or missing file fails here, and is never queued.
        const file = await exportFile(input.file);
        const signal = Context.current().cancellationSignal;
        if (input.config.mode === 'preview') return importOnce(input, file, signal);
        const { submitterQueue: _queue, requester: _, ...apply } = input;
        return throughSubmitter<ImportOutcome>(submitterOf(input), 'importTestDefinitions', apply, outageToleranceOf());
      });
    },
  };
}
