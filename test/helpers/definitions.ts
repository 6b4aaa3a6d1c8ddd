/**
 * The simulator's test-definition export and import, as the simulator tests call them (test/simulator/definitions-*).
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { PRESETS as CONTRACT_PRESETS } from '../../src/contract/presets.js';
import { SEED_IDS, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/index.js';
import { startTestSimulator, type SimHttp } from './sim.js';

export const { salesDev: DEV, salesProd: PROD, financeProd: FIN } = SEED_IDS.testSuites;
export const X = SEED_IDS.externalIds;
export type Config = { mode: string; on_match: string; on_new: string; on_absence: string };
/** The spec's common configurations, by preset name: the contract's own table, indexed by any name here. */
export const PRESETS: Record<string, Omit<Config, 'mode'>> = CONTRACT_PRESETS;

/** A fresh simulator per call, each closed after the calling test file. */
export function freshSimulators(): (options?: SimulatorOptions) => Promise<{ sim: RunningSimulator; http: SimHttp }> {
  const sims: RunningSimulator[] = [];
  after(async () => {
    await Promise.all(sims.map((s) => s.close()));
  });
  return async (options = {}) => {
    const s = await startTestSimulator(options);
    sims.push(s.sim);
    return s;
  };
}

export const exportFile = async (http: SimHttp, suite: string, query = '') => {
  const res = await http.as('admin', 'GET', `/api/v1/test-suites/${suite}/test-definition-export${query}`);
  assert.equal(res.status, 200, res.text);
  return res.body;
};
export const importInto = (
  http: SimHttp,
  suite: string,
  config: Config,
  payload: unknown,
  user: 'admin' | 'viewer' = 'admin',
) => http.as(user, 'POST', `/api/v1/test-suites/${suite}/test-definition-import`, { config, payload });
export const groups = (items: { action: string; reason: string; tds: unknown[] }[]) =>
  Object.fromEntries(items.map((i) => [`${i.action}/${i.reason}`, i.tds.length]));
