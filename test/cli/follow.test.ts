/**
 * `--follow`'s live line: a wait that polls its job has submitted it, so the line says the workflow waits for it,
 * even before the workflow's own stage says so (a short job can end before the report that names it).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { describeLive, follow, liveProgress } from '../../src/cli/follow.js';

/** A handle whose query answers `stage` and whose description has a pending wait heartbeating `beat`, if any. */
function handleAt(stage: string, beat?: { polls: number; lastStatus: string }): WorkflowHandle {
  // What the live line reads of the progress query.
  const progress = { stage, startedAt: new Date().toISOString(), lastStatus: null, polls: 0, interrupts: 0 };
  const pendingActivities = beat ? [{ heartbeatDetails: { payloads: [defaultPayloadConverter.toPayload(beat)] } }] : [];
  return {
    query: async () => progress,
    describe: async () => ({ status: { name: 'RUNNING' }, raw: { pendingActivities } }),
  } as unknown as WorkflowHandle;
}

test('a wait polling its job reads as waiting for it, not as still submitting', async () => {
  const polled = await liveProgress(handleAt('submitting profiling', { polls: 3, lastStatus: 'completed' }));
  assert.equal(polled.live.stage, 'waiting for profiling');
  assert.match(describeLive(polled.live), /\] waiting for profiling · job completed · polls 3$/);
  // Before any poll, the stage is the workflow's.
  const sending = await liveProgress(handleAt('submitting profiling'));
  assert.equal(sending.live.stage, 'submitting profiling');
  assert.doesNotMatch(describeLive(sending.live), /· job /);
  // Any other stage is left as it is.
  const gates = await liveProgress(handleAt('applying quality gates', { polls: 1, lastStatus: 'completed' }));
  assert.equal(gates.live.stage, 'applying quality gates');
});

test("--follow prints each job's page in the service's UI once, as soon as the job is known", async () => {
  const url = 'http://ui:8501/test-runs:results?run_id=j-1';
  let calls = 0;
  const handle = {
    client: { withDeadline: <T>(_: number, fn: () => Promise<T>) => fn() },
    query: async () => ({
      stage: 'waiting for test_run',
      startedAt: new Date().toISOString(),
      lastStatus: 'running',
      polls: 0,
      interrupts: 0,
      jobs: [
        { role: 'test_run', jobId: 'j-1', url },
        { role: 'profiling', jobId: 'p-1' },
      ],
    }),
    describe: async () => ({ status: { name: ++calls >= 3 ? 'COMPLETED' : 'RUNNING' }, raw: {} }),
  } as unknown as WorkflowHandle;
  const written: string[] = [];
  const out = { isTTY: false, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream;
  await follow(handle, out, 1);
  assert.deepEqual(
    written.filter((w) => w.includes('http')),
    [`test_run job j-1: ${url}\n`],
    'once, for the job with a page',
  );
});
