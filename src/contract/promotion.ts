/**
 * Inputs and outputs of the promotion and export workflows: presets and policies, the preview, the approval and
 * rejection arguments, and the results.
 */
import { z } from 'zod';
import { IMPORT_MODES, ON_ABSENCE, ON_MATCH, ON_NEW } from '../vocabulary.js';
import { BlobRef, ExportFilters, ImportItem, ImportOutcome, ImportSummary } from './types.js';
import { JobOptions, Ms } from './workflows.js';

export { PRESETS } from './presets.js';
export const Preset = z.enum(['upsert', 'promotion', 'bulk_calibration', 'insert_only', 'clone_or_sync']);
export type Preset = z.infer<typeof Preset>;

export const Policy = z
  .object({
    on_match: z.enum(ON_MATCH),
    on_new: z.enum(ON_NEW),
    on_absence: z.enum(ON_ABSENCE),
  })
  .strict();

/** How long a promotion waits for its approval when the input does not say: a day. */
export const APPROVAL_TIMEOUT_MS = 24 * 3_600_000;

export const PromoteTestDefinitionsInput = z
  .object({
    profile: JobOptions.shape.profile,
    outageToleranceMs: JobOptions.shape.outageToleranceMs,
    source: z
      .union([
        z.object({ testSuiteId: z.string().min(1), filters: ExportFilters.default({}) }).strict(),
        z.object({ file: BlobRef }).strict().describe('An export file already in the worker store (e.g. a backup)'),
      ])
      .describe('The suite to export from (with filters), or a stored export file'),
    targetTestSuiteId: z.string().min(1),
    preset: Preset.optional(),
    policy: Policy.optional().describe('Explicit on_match / on_new / on_absence, instead of a preset'),
    mode: z.enum(IMPORT_MODES).exclude(['preview']).default('apply'),
    approval: z
      .object({
        required: z.boolean().default(true),
        timeoutMs: Ms(1_000).default(APPROVAL_TIMEOUT_MS),
      })
      .strict()
      .default({ required: true, timeoutMs: APPROVAL_TIMEOUT_MS }),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (!v.preset === !v.policy)
      ctx.addIssue({ code: 'custom', path: ['preset'], message: 'give exactly one of preset or policy' });
  })
  .meta({
    oneOf: [{ required: ['preset'] }, { required: ['policy'] }],
    description: 'Exactly one of preset or policy',
  });
export type PromoteTestDefinitionsInput = z.input<typeof PromoteTestDefinitionsInput>;

/** An import result as the workflow keeps it: counts always, items inline when small. */
export const ImportReport = z.object({
  summary: ImportSummary,
  definitions: z.number().int(),
  counts: z.record(z.string(), z.number().int()),
  items: z.array(ImportItem).nullable(),
  itemsRef: BlobRef.nullable(),
  reconciled: ImportOutcome.shape.reconciled,
});
export type ImportReport = z.infer<typeof ImportReport>;

export const PromotionPreview = ImportReport.extend({
  previewId: z.string().describe('Names this preview; an approval must name it'),
  export: z.object({ file: BlobRef, definitions: z.number().int() }),
  config: Policy.extend({ mode: z.string() }),
  diff: z.array(z.string()).describe('Human-readable counts per action and reason'),
});
export type PromotionPreview = z.infer<typeof PromotionPreview>;

/** The `preview` query's answer: null until the first preview exists. */
export const PreviewQueryResult = PromotionPreview.nullable().describe(
  'The current preview of a promotion, or null before it exists (export and preview still running)',
);

/** What an accepted `approve` or `reject` update answers. */
export const DecisionAck = z.object({
  decision: z.enum(['approved', 'rejected']),
  previewId: z.string().nullable().describe('The preview decided on; null for a rejection that named none'),
});
export type DecisionAck = z.infer<typeof DecisionAck>;

export const PromoteTestDefinitionsResult = z.object({
  status: z.enum(['applied', 'rejected', 'timed_out']),
  preview: PromotionPreview,
  applied: ImportReport.nullable(),
  previews: z
    .number()
    .int()
    .describe('Previews taken: above 1 when the target changed before the apply and approval was asked again'),
  diff: z.array(z.string()),
  decision: z
    .object({
      decision: z.enum(['approved', 'rejected', 'not_required', 'timed_out']),
      by: z.string().nullable(),
      comment: z.string().nullable(),
      at: z.string(),
    })
    .nullable(),
});
export type PromoteTestDefinitionsResult = z.infer<typeof PromoteTestDefinitionsResult>;

export const ApproveInput = z
  .object({
    previewId: z.string().min(1).describe('The preview being approved: must be the current one'),
    by: z.string().min(1).optional(),
    comment: z.string().optional(),
  })
  .strict();
export type ApproveInput = z.infer<typeof ApproveInput>;

export const RejectInput = z
  .object({
    previewId: z.string().min(1).optional(),
    by: z.string().min(1).optional(),
    reason: z.string().min(1),
  })
  .strict();
export type RejectInput = z.infer<typeof RejectInput>;

export const ExportTestDefinitionsInput = z
  .object({
    profile: JobOptions.shape.profile,
    outageToleranceMs: JobOptions.shape.outageToleranceMs,
    testSuiteId: z.string().min(1),
    filters: ExportFilters.default({}),
    destination: z
      .string()
      .min(1)
      .regex(/^(?!\/)(?!.*(^|\/)\.\.(\/|$)).+\.json$/, 'a relative path ending in .json, without ..')
      .optional()
      .describe("Where to write the file, relative to the worker's export directory"),
  })
  .strict();
export type ExportTestDefinitionsInput = z.input<typeof ExportTestDefinitionsInput>;

export const ExportTestDefinitionsResult = z.object({
  file: BlobRef,
  definitions: z.number().int(),
  writtenTo: z.string().nullable(),
});
export type ExportTestDefinitionsResult = z.infer<typeof ExportTestDefinitionsResult>;

/** The input schema of each workflow above, by its name: part of WORKFLOW_INPUTS (inputs.ts). */
export const PROMOTION_WORKFLOW_INPUTS = {
  promoteTestDefinitions: PromoteTestDefinitionsInput,
  exportTestDefinitions: ExportTestDefinitionsInput,
} as const;
