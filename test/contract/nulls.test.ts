/**
 * Callers in other languages send `null` for an optional field they did not set (a pydantic model dumped as JSON
 * does): the input check reads it as absent. A required field's `null` is still refused, by name, and a value that
 * may be null (an order variable) keeps it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkInput } from '../../src/contract/issues.js';
import { ApproveInput, PromoteTestDefinitionsInput } from '../../src/contract/promotion.js';
import { DataQualityPipelineInput, RunOrderInput } from '../../src/contract/workflows.js';

describe('null for an optional input field means absent', () => {
  test('at the top, nested, and for a whole optional object: the defaults apply as if the field were missing', () => {
    const checked = checkInput(DataQualityPipelineInput, {
      tableGroupId: 'tg',
      testSuiteId: 'ts',
      projectCode: null,
      maxStatusDurationMs: null,
      order: null,
      gates: { minScorePercent: null, maxFailed: 2 },
    });
    assert.ok(checked.ok, JSON.stringify(checked));
    assert.equal(checked.data.projectCode, undefined);
    assert.equal(checked.data.maxStatusDurationMs, undefined);
    assert.equal(checked.data.order, undefined);
    assert.deepEqual(
      { min: checked.data.gates.minScorePercent, maxFailed: checked.data.gates.maxFailed },
      { min: undefined, maxFailed: 2 },
    );
    assert.equal(checked.data.pollIntervalMs, 5_000, 'defaults applied');
  });

  test('inside a union (a promotion source) and in an update argument', () => {
    const promotion = checkInput(PromoteTestDefinitionsInput, {
      source: { testSuiteId: 's', filters: null },
      targetTestSuiteId: 't',
      preset: 'upsert',
      policy: null,
    });
    assert.ok(promotion.ok, JSON.stringify(promotion));
    assert.deepEqual(promotion.data.source, { testSuiteId: 's', filters: {} });
    const approval = checkInput(ApproveInput, { previewId: 'p', by: null, comment: null });
    assert.ok(approval.ok, JSON.stringify(approval));
  });

  test('a required field given null is still refused, by name', () => {
    const checked = checkInput(DataQualityPipelineInput, { tableGroupId: null, testSuiteId: 'ts' });
    assert.equal(checked.ok, false);
    assert.ok(!checked.ok && checked.problems.some((p) => p.startsWith('tableGroupId:')), JSON.stringify(checked));
  });

  test('free-form values keep their null: an order variable set to null is sent as null', () => {
    const checked = checkInput(RunOrderInput, { kitchen: 'k', recipe: 'r', variation: 'v', parameters: { tag: null } });
    assert.ok(checked.ok, JSON.stringify(checked));
    assert.deepEqual(checked.data.parameters, { tag: null });
  });
});
