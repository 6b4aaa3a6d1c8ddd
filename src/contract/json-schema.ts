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

type Node = Record<string, unknown>;

const takesNull = (p: Node): boolean =>
  p.type === 'null' ||
  (Array.isArray(p.type) && p.type.includes('null')) ||
  ['anyOf', 'oneOf'].some((k) => Array.isArray(p[k]) && (p[k] as Node[]).some(takesNull));

/**
 * An input schema that takes `null` for each optional field, as the worker does (it reads `null` as absent:
 * src/contract/nulls.ts), at every depth the worker reads so: an object's properties, the options of a union, the
 * definitions they refer to; not the values of a record (an order's free-form `parameters`) nor of an array.
 */
function nullableOptionals(node: unknown): unknown {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
  const n = { ...(node as Node) };
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const)
    if (Array.isArray(n[k])) n[k] = (n[k] as unknown[]).map(nullableOptionals);
  for (const k of ['$defs', 'definitions'] as const)
    if (n[k] && typeof n[k] === 'object')
      n[k] = Object.fromEntries(Object.entries(n[k] as Node).map(([d, v]) => [d, nullableOptionals(v)]));
  const required = (n.required as string[] | undefined) ?? [];
  if (n.properties && typeof n.properties === 'object') {
    n.properties = Object.fromEntries(
      Object.entries(n.properties as Record<string, Node>).map(([key, p]) => {
        const inner = nullableOptionals(p) as Node;
        return [key, required.includes(key) || takesNull(inner) ? inner : orNull(inner)];
      }),
    );
  } else if (required.length) {
    // A rule that a field be given (`exactly one of preset or policy`): a null one is not given.
    n.properties = Object.fromEntries(required.map((key) => [key, { not: { type: 'null' } }]));
  }
  return n;
}

/** A property that also takes null, its annotations (description, default) kept where a reader looks for them. */
function orNull(p: Node): Node {
  const { description, default: fallback, title, ...rest } = p;
  return {
    ...(title !== undefined ? { title } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(fallback !== undefined ? { default: fallback } : {}),
    anyOf: [rest, { type: 'null' }],
  };
}

/**
 * File name → JSON Schema document. Inputs describe what callers may send (defaults optional, `null` for an optional
 * field as absent) and refuse unknown fields, as the worker does; outputs describe what callers receive, open to
 * fields added later.
 */
export function contractJsonSchemas(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(INPUTS))
    out[`${name}.json`] = {
      title: name,
      ...(nullableOptionals(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })) as object),
    };
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
