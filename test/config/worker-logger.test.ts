import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LogEntry } from '@temporalio/worker';
import { WorkerLogger } from '../../src/telemetry/worker-logger.js';

const NO_WORKFLOWS = 'No workflows registered, not polling for workflow tasks';

test("the SDK's warning that a worker has no workflows is DEBUG for the waits queue only; the rest passes as it came", () => {
  const seen: Pick<LogEntry, 'level' | 'message'>[] = [];
  const logger = (level: 'INFO' | 'DEBUG') =>
    new WorkerLogger(level, 'orders-waits', ({ level, message }) => seen.push({ level, message }));

  // As the SDK's worker logs it: its metadata names the component and the task queue.
  logger('INFO').warn(NO_WORKFLOWS, { sdkComponent: 'worker', taskQueue: 'orders-waits' });
  assert.deepEqual(seen, [], 'not shown at INFO');
  logger('DEBUG').warn(NO_WORKFLOWS, { sdkComponent: 'worker', taskQueue: 'orders-waits' });
  assert.deepEqual(seen.splice(0), [{ level: 'DEBUG', message: NO_WORKFLOWS }]);

  // Another queue's worker without workflows is a mistake worth a warning; other warnings stay warnings.
  logger('INFO').warn(NO_WORKFLOWS, { sdkComponent: 'worker', taskQueue: 'orders' });
  logger('INFO').warn('Activity heartbeat timed out', { taskQueue: 'orders-waits' });
  logger('INFO').log('WARN', NO_WORKFLOWS);
  assert.deepEqual(seen, [
    { level: 'WARN', message: NO_WORKFLOWS },
    { level: 'WARN', message: 'Activity heartbeat timed out' },
    { level: 'WARN', message: NO_WORKFLOWS },
  ]);
});
