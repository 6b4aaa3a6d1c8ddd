/**
 * A Temporal server (the dev server, or the time-skipping test server) and a simulator, shared by one `describe`
 * block's tests: started before them, closed after.
 */
import { after, before } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import type { RunningSimulator, SimulatorOptions } from '../../src/simulator/index.js';
import { startTestSimulator, faultHits } from './sim.js';
import { startDevServerEnv, startTimeSkippingEnv, type TestEnv } from './temporal.js';
import { eventually } from './wait.js';

/** Jobs of about 0.65 s, whose cancels and interrupts take 0.1 s. */
export const FAST_JOBS = { pendingMs: 100, claimMs: 50, runMs: 500, cancelMs: 100, interruptMs: 100 };

export interface DevAndSim {
  d: TestEnv;
  sim: RunningSimulator;
}

/**
 * Registers the block's before and after hooks for a dev server; the fields are set once `before` has run.
 * `options`: the simulator's (jobs of FAST_JOBS by default); `serverConfig`: the dev server's dynamic config values.
 */
export function devServerAndSimulator(
  options: SimulatorOptions = { jobDurations: FAST_JOBS },
  serverConfig: Record<string, string | number> = {},
): DevAndSim {
  return serverAndSimulator(() => startDevServerEnv(serverConfig), options);
}

/** As devServerAndSimulator, on the time-skipping test server (`d`); `options`: the simulator's (its defaults). */
export function timeSkippingAndSimulator(options: SimulatorOptions = {}): DevAndSim {
  return serverAndSimulator(startTimeSkippingEnv, options);
}

function serverAndSimulator(start: () => Promise<TestEnv>, options: SimulatorOptions): DevAndSim {
  const s = {} as DevAndSim;
  before(async () => {
    s.d = await start();
    s.sim = (await startTestSimulator(options)).sim;
  });
  after(async () => {
    await s.sim?.close();
    await s.d?.env.teardown();
  });
  return s;
}

/**
 * Holds the service's answer to the next POST to `path` for 2 s, and answers what cancels a workflow once the service
 * has that submission: a cancel while it is in flight.
 */
export function cancelWhileSubmitting(s: DevAndSim, path: string): (handle: WorkflowHandle) => Promise<void> {
  const held = s.sim.controls.addFault({ kind: 'delay', delay_ms: 2_000, method: 'POST', path });
  return async (handle) => {
    await eventually('the submission held by the service', () => faultHits(s.sim, held) === 1);
    await handle.cancel();
  };
}
