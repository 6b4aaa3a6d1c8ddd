/**
 * The scale benchmark's job lengths (bench/scale/durations.ts) go to the side they were planned for: plans a side left
 * unused (a pipeline that never submitted) are dropped before the next side's, which would otherwise get them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planRunTimes, runMsOf } from '../../bench/scale/durations.js';
import { startSimulator } from '../../src/simulator/index.js';
import { SimControls } from '../helpers/matrix-world.js';

test('bench:scale drops the job plans the side before left unused, and says how many', async () => {
  const sim = await startSimulator({ port: 0, controls: true });
  try {
    const controls = new SimControls(sim.url);
    const batch = [{ tableGroupId: 'tg-1', testSuiteId: 'ts-1' }];
    assert.equal(await planRunTimes(controls, batch, 1_000, 500), 0, 'nothing planned before');
    // No job was submitted: both plans of the first side (a profiling run and a test run) are still there.
    assert.equal(await planRunTimes(controls, batch, 1_000, 500), 2);
    // Without a spread nothing is planned, and the leftovers still go.
    assert.equal(await planRunTimes(controls, batch, 1_000, 0), 2);
    assert.equal(await planRunTimes(controls, batch, 1_000, 0), 0);
    assert.ok(runMsOf(1_000, 500, 0, 0) >= 1_000 && runMsOf(1_000, 500, 0, 0) <= 1_500);
  } finally {
    await sim.close();
  }
});
