/** A dev server and a simulator of fast jobs, shared by one `describe` block's tests: started before them, closed after. */
import { after, before } from 'node:test';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { startTestSimulator } from './sim.js';
import { startDevServerEnv, type TestEnv } from './temporal.js';

/** Jobs of about 0.65 s, whose cancels and interrupts take 0.1 s. */
export const FAST_JOBS = { pendingMs: 100, claimMs: 50, runMs: 500, cancelMs: 100, interruptMs: 100 };

export interface DevAndSim {
  d: TestEnv;
  sim: RunningSimulator;
}

/** Registers the block's before and after hooks; the fields are set once `before` has run. */
export function devServerAndSimulator(): DevAndSim {
  const s = {} as DevAndSim;
  before(async () => {
    s.d = await startDevServerEnv();
    s.sim = (await startTestSimulator({ jobDurations: FAST_JOBS })).sim;
  });
  after(async () => {
    await s.sim?.close();
    await s.d?.env.teardown();
  });
  return s;
}
