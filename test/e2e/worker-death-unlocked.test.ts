/**
 * A worker dies right after its wait sent a test run without the lock (src/activities/unlocked.ts), before the record
 * of that send reached Temporal (its heartbeats throttled): no lock kept, no send recorded. The wait's next attempt
 * must look for the run by its id before it sends anything, and find it: one run, followed to the end, never a second
 * one, and never the earlier run on the same suite.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JobRun } from '../../src/contract/index.js';
import { ending } from '../helpers/ending.js';
import { cellIds } from '../helpers/matrix.js';
import { worldOfCells } from '../helpers/matrix-world.js';
import { killedBeforeItsRecord } from '../helpers/unrecorded-send.js';

const LONG = { timeout: 10 * 60_000 };

describe('a test run sent without the lock by a worker that died before recording the send', () => {
  const world = worldOfCells(1);

  test('the next attempt finds the run by its id and sends nothing', LONG, async () => {
    const w = world();
    const ids = cellIds(0);
    const queue = 'death-unlocked';
    const polling = { pollIntervalMs: 200, maxPollIntervalMs: 400 };
    const start = (taskQueue: string, name: string, input: Record<string, unknown>) =>
      w.client.workflow.start('dataops.runTestSuite', {
        taskQueue,
        workflowId: `${name}-${Date.now()}`,
        args: [{ testSuiteId: ids.target, ...polling, ...input }],
      });
    // A run of ours on the suite first: the simulator then shows our id (the proof), and an earlier run is there to
    // be wrongly taken.
    w.startWorker(`${queue}-first`);
    const firstEnd = await ending<{ job: JobRun }>(await start(`${queue}-first`, 'unlocked-first', {}));
    assert.equal(firstEnd.outcome, 'ok', firstEnd.failure);
    const handle = await killedBeforeItsRecord(w, queue, `/test-suites/${ids.target}/test-runs`, () =>
      start(queue, 'unlocked-second', { heartbeatTimeoutMs: 20_000 }),
    );
    const end = await ending<{ job: JobRun }>(handle);
    assert.equal(end.outcome, 'ok', end.failure);
    const runs = (await w.controls.jobs()).filter((j) => j.job_key === 'run-tests' && j.test_suite_id === ids.target);
    assert.equal(runs.length, 2, 'the earlier run and this one: nothing sent twice');
    assert.notEqual(end.result!.job.jobId, firstEnd.result!.job.jobId, 'not the earlier run');
    assert.equal(end.result!.job.reconciled, true, 'found by its id, not answered');
    const types = ((await handle.fetchHistory()).events ?? []).flatMap(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
    );
    assert.equal(types[0], 'dataops.submitAndWaitForJob', `the wait sent it: ${types.join(', ')}`);
  });
});
