import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { contractJsonSchemas, lineageFacetSchemas } from '../../src/contract/json-schema.js';
import { PromotionPreview } from '../../src/contract/promotion.js';
import { PREVIEW, withAddedFields } from '../helpers/contract-samples.js';

const dir = fileURLToPath(new URL('../../../contract/json-schema/', import.meta.url));
const lineageDir = fileURLToPath(new URL('../../../contract/lineage/', import.meta.url));

describe('the contract for callers in other languages', () => {
  test('the committed JSON Schema files match the zod schemas (run `npm run contract:json` when this fails)', () => {
    for (const [folder, expected] of [
      [dir, contractJsonSchemas()],
      [lineageDir, lineageFacetSchemas()],
    ] as const) {
      const committed = readdirSync(folder)
        .filter((f) => f.endsWith('.json'))
        .sort();
      assert.deepEqual(committed, Object.keys(expected).sort(), `the set of files in ${folder}`);
      for (const file of committed)
        assert.deepEqual(
          JSON.parse(readFileSync(`${folder}${file}`, 'utf8')),
          expected[file],
          `${file} is out of date`,
        );
    }
  });

  test('inputs describe what callers may send: defaults are optional, required keys are listed', () => {
    const pipeline = contractJsonSchemas()['DataQualityPipelineInput.json'] as {
      required: string[];
      properties: Record<string, { default?: unknown; anyOf?: { enum?: string[]; type?: string }[]; type?: string }>;
      additionalProperties: boolean;
    };
    assert.deepEqual(pipeline.required.sort(), ['tableGroupId', 'testSuiteId']);
    assert.equal(pipeline.properties.profile?.default, 'default');
    // An optional field also takes null, which the worker reads as absent (contract/nulls.ts); a required one does not.
    assert.deepEqual(pipeline.properties.onGateFailure?.anyOf, [
      { type: 'string', enum: ['fail', 'report'] },
      { type: 'null' },
    ]);
    assert.equal(pipeline.properties.tableGroupId?.type, 'string');
    assert.equal(pipeline.additionalProperties, false);
  });

  test('outputs take a field a later version adds, at any depth; inputs still refuse an unknown one', () => {
    const schemas = contractJsonSchemas();
    const inputs = Object.keys(schemas).filter((f) => f.endsWith('Input.json'));
    const outputs = Object.keys(schemas).filter((f) => !f.endsWith('Input.json'));
    assert.equal(inputs.length, 8);
    assert.equal(outputs.length, 10);
    for (const file of outputs)
      assert.doesNotMatch(JSON.stringify(schemas[file]), /"additionalProperties":false/, `${file} closes an object`);
    const ajv = new Ajv2020({ strict: false });
    const preview = ajv.compile(schemas['PromotionPreview.json'] as object);
    const answer = PromotionPreview.parse(PREVIEW); // what the worker itself would answer
    assert.ok(preview(answer), ajv.errorsText(preview.errors));
    assert.ok(preview(withAddedFields(answer)), ajv.errorsText(preview.errors));
    // Open is not loose: a field the contract has must still have its type.
    assert.equal(preview({ ...answer, summary: { ...answer.summary, created: 'two' } }), false);
    for (const file of inputs)
      assert.equal((schemas[file] as { additionalProperties?: unknown }).additionalProperties, false, file);
    const approve = ajv.compile(schemas['ApproveInput.json'] as object);
    assert.ok(approve({ previewId: 'preview-1' }), ajv.errorsText(approve.errors));
    assert.equal(approve({ previewId: 'preview-1', aproved_by: 'a typo' }), false);
  });
});
