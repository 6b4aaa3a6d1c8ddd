import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { contractJsonSchemas } from '../../src/contract/json-schema.js';

const dir = fileURLToPath(new URL('../../../contract/json-schema/', import.meta.url));

describe('the contract for callers in other languages', () => {
  test('the committed JSON Schema files match the zod schemas (run `npm run contract:json` when this fails)', () => {
    const expected = contractJsonSchemas();
    const committed = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort();
    assert.deepEqual(committed, Object.keys(expected).sort(), 'the set of files');
    for (const file of committed) {
      assert.deepEqual(JSON.parse(readFileSync(`${dir}${file}`, 'utf8')), expected[file], `${file} is out of date`);
    }
  });

  test('inputs describe what callers may send: defaults are optional, required keys are listed', () => {
    const pipeline = contractJsonSchemas()['DataQualityPipelineInput.json'] as {
      required: string[];
      properties: Record<string, { default?: unknown; enum?: string[] }>;
      additionalProperties: boolean;
    };
    assert.deepEqual(pipeline.required.sort(), ['tableGroupId', 'testSuiteId']);
    assert.equal(pipeline.properties.profile?.default, 'default');
    assert.deepEqual(pipeline.properties.onGateFailure?.enum, ['fail', 'report']);
    assert.equal(pipeline.additionalProperties, false);
  });
});
