/**
 * `--follow`'s live line: a wait that polls its job has submitted it, so the line says the workflow waits for it,
 * even before the workflow's own stage says so (a short job can end before the report that names it).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { describeLive, liveProgress } from '../../src/cli/follow.js';

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
