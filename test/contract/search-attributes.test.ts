/**
 * A start with a run's first search attributes, refused because the namespace does not know them, is made again
 * without them (the refusal started nothing); any other failure is the caller's, and is not retried.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { searchAttributesAtStart, startWithSearchAttributes } from '../../src/contract/index.js';

type Extra = { typedSearchAttributes?: SearchAttributePair[] };

/** A start that fails as the client does (its reason in the cause) while it is given search attributes. */
function refusingStart(reason: string) {
  const calls: Extra[] = [];
  const start = (extra: Extra) => {
    calls.push(extra);
    if (!extra.typedSearchAttributes) return Promise.resolve('started');
    return Promise.reject(new ServiceError('Failed to start Workflow', { cause: new Error(reason) }));
  };
  return { calls, start };
}

describe('a start with the first search attributes', () => {
  const pairs = searchAttributesAtStart('profileTableGroup', { tableGroupId: 'tg-1' });

  it('names what the workflow sets first', () => {
    assert.deepEqual(
      pairs.map((p) => [p.key.name, p.value]),
      [
        ['DataopsTableGroupId', 'tg-1'],
        ['DataopsStage', 'profiling'],
      ],
    );
  });

  it('refused for them, is made again without them, and says why', async () => {
    const reason = '3 INVALID_ARGUMENT: Namespace n has no mapping defined for search attribute DataopsTableGroupId';
    const { calls, start } = refusingStart(reason);
    const heard: string[] = [];
    assert.equal(await startWithSearchAttributes(pairs, start, (r) => heard.push(r)), 'started');
    assert.deepEqual(calls, [{ typedSearchAttributes: pairs }, {}]);
    assert.deepEqual(heard, [reason]);
  });

  it('failed for another reason, is not made again', async () => {
    const { calls, start } = refusingStart('14 UNAVAILABLE: connection refused');
    await assert.rejects(
      startWithSearchAttributes(pairs, start, () => assert.fail('not a refusal of the attributes')),
      /Failed to start Workflow/,
    );
    assert.equal(calls.length, 1);
  });

  it('accepted, is made once', async () => {
    const calls: Extra[] = [];
    const result = await startWithSearchAttributes(
      pairs,
      (extra) => {
        calls.push(extra);
        return Promise.resolve('started');
      },
      () => assert.fail('not refused'),
    );
    assert.equal(result, 'started');
    assert.deepEqual(calls, [{ typedSearchAttributes: pairs }]);
  });
});
