/**
 * The JSON Schemas and the worker agree: every input below goes through the committed schema (as a caller in another
 * language would validate it, with a standard 2020-12 validator) and through the workflow itself on a Temporal
 * server. Where they disagree, the case must be one of the rules JSON Schema cannot state, and the schema must name
 * that rule in `x-rules`. Any other disagreement fails.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createActivities } from '../../src/activities/index.js';
import { workflowsPath } from '../helpers/activities.js';
import { startTimeSkippingEnv, withWorker, type TestEnv } from '../helpers/temporal.js';

const dir = fileURLToPath(new URL('../../../contract/json-schema/', import.meta.url));
const SCHEMA: Record<string, string> = {
  runOrder: 'RunOrderInput.json',
  profileTableGroup: 'ProfileTableGroupInput.json',
  runTestSuite: 'RunTestSuiteInput.json',
  dataQualityPipeline: 'DataQualityPipelineInput.json',
  promoteTestDefinitions: 'PromoteTestDefinitionsInput.json',
  exportTestDefinitions: 'ExportTestDefinitionsInput.json',
};

const order = { kitchen: 'k', recipe: 'r', variation: 'v' };
const pipeline = { tableGroupId: 'tg', testSuiteId: 'ts' };
const promote = { source: { testSuiteId: 's' }, targetTestSuiteId: 't' };
const policy = { on_match: 'skip', on_new: 'create', on_absence: 'do_nothing' };

/** [name, workflow, input, the x-rule the schema cannot check (the worker refuses, the schema accepts)] */
const CASES: [string, string, Record<string, unknown>, string?][] = [
  ['a minimal order', 'runOrder', order],
  [
    'an order with every override kind',
    'runOrder',
    { ...order, parameters: { a: 1 }, overrides: { infrastructure: { b: 2 } } },
  ],
  ['an order without a variation', 'runOrder', { kitchen: 'k', recipe: 'r' }],
  ['an empty kitchen', 'runOrder', { ...order, kitchen: '' }],
  ['an unknown override kind', 'runOrder', { ...order, overrides: { sideways: {} } }],
  ['an unknown key', 'runOrder', { ...order, surprise: true }],
  [
    'a variable set twice',
    'runOrder',
    { ...order, parameters: { image_tag: 'x' }, overrides: { infrastructure: { image_tag: 'y' } } },
    'a variable is set once',
  ],
  ['a minimal profiling run', 'profileTableGroup', { tableGroupId: 'tg' }],
  ['a fractional poll interval', 'profileTableGroup', { tableGroupId: 'tg', pollIntervalMs: 150.5 }],
  ['a poll interval below 100 ms', 'profileTableGroup', { tableGroupId: 'tg', pollIntervalMs: 5 }],
  ['an unknown wait strategy', 'profileTableGroup', { tableGroupId: 'tg', waitStrategy: 'sometimes' }],
  ['an outage tolerance under a minute', 'profileTableGroup', { tableGroupId: 'tg', outageToleranceMs: 1_000 }],
  [
    'a longest poll shorter than the first',
    'profileTableGroup',
    { tableGroupId: 'tg', pollIntervalMs: 60_000, maxPollIntervalMs: 1_000, heartbeatTimeoutMs: 600_000 },
    'maxPollIntervalMs >= pollIntervalMs',
  ],
  [
    'a heartbeat timeout shorter than two polls (the default one)',
    'runTestSuite',
    { testSuiteId: 'ts', pollIntervalMs: 40_000, maxPollIntervalMs: 60_000 },
    'heartbeatTimeoutMs >= 2 * pollIntervalMs',
  ],
  ['a minimal test run', 'runTestSuite', { testSuiteId: 'ts' }],
  ['a test run without a suite', 'runTestSuite', {}],
  ['a minimal pipeline', 'dataQualityPipeline', pipeline],
  ['a pipeline with gates and an order', 'dataQualityPipeline', { ...pipeline, order, gates: { minScorePercent: 90 } }],
  ['a score gate above 100', 'dataQualityPipeline', { ...pipeline, gates: { minScorePercent: 101 } }],
  ['the renamed minScore', 'dataQualityPipeline', { ...pipeline, gates: { minScore: 0.9 } }],
  ['a negative failure allowance', 'dataQualityPipeline', { ...pipeline, gates: { maxFailed: -1 } }],
  ['an unknown gate policy', 'dataQualityPipeline', { ...pipeline, onGateFailure: 'shrug' }],
  ['an order missing its recipe', 'dataQualityPipeline', { ...pipeline, order: { kitchen: 'k' } }],
  [
    "the order's variable set twice",
    'dataQualityPipeline',
    { ...pipeline, order: { ...order, parameters: { d: 1 }, overrides: { sourceDataDate: { d: 2 } } } },
    'order: a variable is set once',
  ],
  [
    'polls out of order in the pipeline',
    'dataQualityPipeline',
    { ...pipeline, pollIntervalMs: 10_000, maxPollIntervalMs: 5_000 },
    'maxPollIntervalMs >= pollIntervalMs',
  ],
  ['a promotion with a preset', 'promoteTestDefinitions', { ...promote, preset: 'upsert' }],
  ['a promotion with a policy', 'promoteTestDefinitions', { ...promote, policy }],
  ['a promotion with both', 'promoteTestDefinitions', { ...promote, preset: 'upsert', policy }],
  ['a promotion with neither', 'promoteTestDefinitions', promote],
  ['a promotion in preview mode', 'promoteTestDefinitions', { ...promote, preset: 'upsert', mode: 'preview' }],
  ['an unknown preset', 'promoteTestDefinitions', { ...promote, preset: 'yolo' }],
  [
    'a stored file with a bad hash',
    'promoteTestDefinitions',
    { source: { file: { ref: 'local:x', sha256: 'abc', bytes: 1 } }, targetTestSuiteId: 't', preset: 'upsert' },
  ],
  [
    'an approval timeout under a second',
    'promoteTestDefinitions',
    { ...promote, preset: 'upsert', approval: { timeoutMs: 5 } },
  ],
  // null for an optional field is absent, as a caller's generated model sends it (a pydantic model's unset fields).
  ['a null preset beside a policy', 'promoteTestDefinitions', { ...promote, preset: null, policy }],
  ['a null project code and gates', 'dataQualityPipeline', { ...pipeline, projectCode: null, gates: null }],
  ['a null gate inside gates', 'dataQualityPipeline', { ...pipeline, gates: { minScorePercent: 90, maxFailed: null } }],
  ['a null variation and parameters', 'runOrder', { ...order, variation: null, parameters: null }],
  ['a null required suite', 'runTestSuite', { testSuiteId: null }],
  ['a minimal export', 'exportTestDefinitions', { testSuiteId: 's' }],
  ['an unknown origin filter', 'exportTestDefinitions', { testSuiteId: 's', filters: { origin: 'sometimes' } }],
];

/** What the worker says: InvalidInput, or anything else (it went on to call the service, here with no profile). */
async function workerAccepts(t: TestEnv, workflow: string, input: unknown): Promise<boolean> {
  const err = await withWorker(t.env, { workflowsPath, activities: createActivities({ profiles: {} }) }, (taskQueue) =>
    t.env.client.workflow.execute(`dataops.${workflow}`, {
      taskQueue,
      workflowId: `agree-${taskQueue}`,
      args: [input],
    }),
  ).catch((e: unknown) => e);
  assert.ok(err instanceof WorkflowFailedError, `with no profile configured, ${workflow} cannot succeed`);
  return !(err.cause instanceof ApplicationFailure && err.cause.type === 'InvalidInput');
}

describe('the JSON Schemas and the worker agree on every input', () => {
  let t: TestEnv;
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
  ajv.addKeyword('x-rules');
  const schemas = new Map<string, { validate: (v: unknown) => boolean; rules: string[] }>();
  before(async () => {
    t = await startTimeSkippingEnv();
    for (const [workflow, file] of Object.entries(SCHEMA)) {
      const schema = JSON.parse(readFileSync(`${dir}${file}`, 'utf8')) as { 'x-rules'?: string[] };
      const validate = ajv.compile(schema);
      schemas.set(workflow, { validate: (v) => validate(v), rules: schema['x-rules'] ?? [] });
    }
  });
  after(async () => t?.env.teardown());

  for (const [name, workflow, input, rule] of CASES) {
    test(`${workflow}: ${name}`, async () => {
      const schema = schemas.get(workflow);
      assert.ok(schema, `a schema for ${workflow}`);
      const bySchema = schema.validate(input);
      const byWorker = await workerAccepts(t, workflow, input);
      if (rule === undefined) {
        assert.equal(bySchema, byWorker, `schema says ${bySchema ? 'valid' : 'invalid'}, worker the opposite`);
      } else {
        assert.deepEqual([bySchema, byWorker], [true, false], 'a rule only the worker can check');
        assert.ok(
          schema.rules.some((r) => r.startsWith(rule)),
          `the schema states the rule '${rule}' in x-rules: ${JSON.stringify(schema.rules)}`,
        );
      }
    });
  }

  test('the cases cover each rule JSON Schema cannot state, and every rule stated is exercised', () => {
    const stated = new Set([...schemas.values()].flatMap((s) => s.rules));
    const covered = new Set(CASES.flatMap(([, , , rule]) => (rule ? [rule] : [])));
    for (const r of stated)
      assert.ok(
        [...covered].some((c) => r.startsWith(c)),
        `no case exercises the rule '${r}'`,
      );
  });
});
