import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jsonLogLine } from '../../src/worker.js';

describe('JSON logs', () => {
  test('an error in the metadata keeps its name, message, stack and cause', () => {
    const cause = new Error('socket hang up');
    const error = new TypeError('the service did not answer', { cause });
    const line = JSON.parse(
      jsonLogLine({
        level: 'ERROR',
        message: 'activity failed',
        timestampNanos: 1_795_000_000_000_000_000n,
        meta: { error },
      }),
    );
    assert.equal(line.level, 'ERROR');
    assert.equal(line.message, 'activity failed');
    assert.equal(line.ts, new Date(1_795_000_000_000).toISOString());
    assert.equal(line.error.name, 'TypeError');
    assert.equal(line.error.message, 'the service did not answer');
    assert.match(line.error.stack, /TypeError: the service did not answer/);
    assert.equal(line.error.cause.message, 'socket hang up');
  });
});
