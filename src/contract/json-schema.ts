/**
 * JSON Schema of every workflow input and output, query answer and update argument and acknowledgement, generated
 * from the zod schemas, for callers in other languages. Rules across fields that JSON Schema cannot state are in
 * each schema's `x-rules` and description.
 */
import { z } from 'zod';
import * as progress from './progress.js';
import * as promotion from './promotion.js';
import * as jobs from './workflows.js';

const w = { ...jobs, ...promotion, ...progress };

const INPUTS = {
  RunOrderInput: w.RunOrderInput,
  ProfileTableGroupInput: w.ProfileTableGroupInput,
  RunTestSuiteInput: w.RunTestSuiteInput,
  DataQualityPipelineInput: w.DataQualityPipelineInput,
  PromoteTestDefinitionsInput: w.PromoteTestDefinitionsInput,
  ExportTestDefinitionsInput: w.ExportTestDefinitionsInput,
  ApproveInput: w.ApproveInput,
  RejectInput: w.RejectInput,
} as const;

/** What queries and updates answer. */
const ANSWERS = {
  PreviewQueryResult: w.PreviewQueryResult,
  DecisionAck: w.DecisionAck,
} as const;

const OUTPUTS = {
  RunOrderResult: w.RunOrderResult,
  ProfileTableGroupResult: w.ProfileTableGroupResult,
  RunTestSuiteResult: w.RunTestSuiteResult,
  DataQualityPipelineResult: w.DataQualityPipelineResult,
  PromoteTestDefinitionsResult: w.PromoteTestDefinitionsResult,
  ExportTestDefinitionsResult: w.ExportTestDefinitionsResult,
  PromotionPreview: w.PromotionPreview,
  Progress: w.Progress,
  ...ANSWERS,
} as const;

/** File name → JSON Schema document. Inputs describe what callers may send (defaults optional). */
export function contractJsonSchemas(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(INPUTS))
    out[`${name}.json`] = { title: name, ...z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) };
  for (const [name, schema] of Object.entries(OUTPUTS))
    out[`${name}.json`] = { title: name, ...z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) };
  return out;
}
