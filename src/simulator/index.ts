/** The simulator's public surface: build or start it, its options, controls, seed and records. */
export { buildSimulator, startSimulator } from './app.js';
export type {
  RequestLogEntry,
  RunningSimulator,
  SimControls,
  SimCounters,
  Simulator,
  SimulatorOptions,
} from './app.js';
export { DEFAULT_VARIANTS, type SimVariants } from './context.js';
export { SEED_IDS, SEED_USERS, defaultSeed } from './default-seed.js';
export { SIM_CUSTOMER } from './routes-v2.js';
export type { FaultInput } from './faults.js';
export { Seed, loadSeedFile, parseSeed, type SeedInput } from './seed.js';
export { DEFAULT_JOB_DURATIONS, DEFAULT_ORDER_DURATIONS, type JobDurations, type JobRecord } from './state.js';
