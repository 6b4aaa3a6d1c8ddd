/**
 * The worker our `createWorker` makes lets another worker take a workflow's task 1 s after the worker that has it
 * cached stops polling (the SDK's default is 10 s): a worker killed without a word (SIGKILL, a lost node) would
 * otherwise hold a cancel back from its workflow, and from the job, for 10 s. The explorer measures what that does to
 * the cancel latency (docs/testing.md); a team that wants the SDK's default passes its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { STICKY_TIMEOUT_MS } from '../../src/config/worker-settings.js';
import { loadWorkerConfig } from '../../src/config/worker.js';
import { createWorker } from '../../src/worker.js';
import { simulatorService } from '../helpers/processes.js';
import { startDevServerEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';

describe('the sticky queue timeout of our worker', () => {
  let t: TestEnv;
  before(async () => {
    t = await startDevServerEnv();
  });
  after(async () => {
    await t?.env.teardown();
  });

  const workerWith = async (extra = {}) => {
    const config = loadWorkerConfig({
      TEMPORAL_ADDRESS: t.env.connection.options.address,
      TEMPORAL_TASK_QUEUE: uniqueTaskQueue('sticky'),
      ...simulatorService('http://127.0.0.1:9'), // never called: nothing runs
      DATAOPS_SEARCH_ATTRIBUTES: 'off',
    });
    const { worker, deps } = await createWorker(config, t.env.nativeConnection, extra);
    const timeoutMs = worker.main.options.stickyQueueScheduleToStartTimeoutMs;
    await worker.runUntil(Promise.resolve()); // run and shut down: a worker never run keeps the connection open
    await deps.close();
    return timeoutMs;
  };

  test('is 1 s, not the SDK default of 10 s, and a team may pass its own', async () => {
    assert.equal(STICKY_TIMEOUT_MS, 1_000);
    assert.equal(await workerWith(), 1_000);
    assert.equal(await workerWith({ stickyQueueScheduleToStartTimeout: '10s' }), 10_000);
  });
});
