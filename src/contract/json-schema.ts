/**
 * JSON Schema of every workflow input and output, query answer and update argument and acknowledgement, generated
 * from the zod schemas, for callers in other languages. Rules across fields that JSON Schema cannot state are in
 * each schema's `x-rules` and description.
 */
import { z } from 'zod';
import * as progress from './progress.js';
import * as promotion from './promotion.js';
import * as jobs from './workflows.js';
import { WORKFLOW_INPUTS } from './inputs.js';
import { DataopsQualityRunFacet, DataopsRunFacet } from './lineage-facets.js';

const w = { ...jobs, ...promotion, ...progress };

/** Each workflow's input (`RunOrderInput` for `runOrder`: the worker's list, inputs.ts), and the updates' arguments. */
const INPUTS: Record<string, z.ZodType> = {
  ...Object.fromEntries(
    Object.entries(WORKFLOW_INPUTS).map(([workflow, schema]) => [
      `${workflow[0]!.toUpperCase()}${workflow.slice(1)}Input`,
      schema,
    ]),
  ),
  ApproveInput: w.ApproveInput,
  RejectInput: w.RejectInput,
};

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

/**
 * A schema with its objects left open (`additionalProperties: false` removed at every depth). zod closes every object
 * it outputs, since its parse drops unknown keys; but a caller's model generated from that refuses a field a later
 * version adds. Outputs may gain fields (docs/contract.md, "Compatibility"), so their schemas stay open. A record's
 * `additionalProperties` (a schema for its values) is kept.
 */
function opened(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(opened);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(key === 'additionalProperties' && value === false))
      .map(([key, value]) => [key, opened(value)]),
  );
}

/**
 * File name → JSON Schema document. Inputs describe what callers may send (defaults optional) and refuse unknown
 * fields, as the worker does; outputs describe what callers receive, open to fields added later.
 */
export function contractJsonSchemas(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(INPUTS))
    out[`${name}.json`] = { title: name, ...z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) };
  for (const [name, schema] of Object.entries(OUTPUTS))
    out[`${name}.json`] = {
      title: name,
      ...(opened(z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' })) as object),
    };
  return out;
}

/**
 * File name → JSON Schema of our custom OpenLineage run facets (contract/lineage/), which the events' `_schemaURL`
 * names: for lineage consumers, not workflow callers. Open to fields a later version adds, as outputs are.
 */
export function lineageFacetSchemas(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries({ DataopsRunFacet, DataopsQualityRunFacet }))
    out[`${name}.json`] = {
      title: name,
      ...(opened(z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' })) as object),
    };
  return out;
}
