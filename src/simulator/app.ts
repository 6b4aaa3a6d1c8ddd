/**
 * The simulator app: builds the state, the clock and the fault book, and assembles the Fastify pieces (HTTP
 * plumbing, `/v2` routes, `/api/v1` routes, and the test controls when enabled). `buildSimulator` builds the app;
 * `startSimulator` also listens.
 */
import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance } from 'fastify';
import { SimClock } from './clock.js';
import { DEFAULT_VARIANTS, type SimContext, type SimVariants } from './context.js';
import { type SimControls, createControls } from './controls.js';
import { controlRoutes } from './control-routes.js';
import { defaultSeed } from './default-seed.js';
import { FaultBook } from './faults.js';
import { installHttp } from './http.js';
import { advanceJobs } from './jobs.js';
import { advanceServings } from './orders.js';
import { apiRoutes } from './routes-api.js';
import { oauthRoutes } from './routes-oauth.js';
import { v2Routes } from './routes-v2.js';
import { parseSeed, type Seed, type SeedInput } from './seed.js';
import {
  DEFAULT_JOB_DURATIONS,
  DEFAULT_ORDER_DURATIONS,
  initialState,
  loadStateFile,
  saveStateFile,
  type JobDurations,
  type OrderDurations,
} from './state.js';

export type { RequestLogEntry } from './http.js';
export type { SimControls, SimCounters } from './controls.js';

export interface SimulatorOptions {
  /** The project to simulate. @default the DEMO project of default-seed.ts */
  seed?: SeedInput;
  /** Serve the test controls under `/_sim/`. @default false */
  controls?: boolean;
  /** Session token lifetime. @default 4 hours */
  tokenLifetimeMs?: number;
  /** Lifetime of the OAuth endpoint's access tokens. @default 1 hour (TestGen 5.134) */
  accessTokenLifetimeMs?: number;
  /** The clock stands still unless advanced through the controls. @default false (real time plus offset) */
  manualClock?: boolean;
  /** Phase durations of new jobs. @default DEFAULT_JOB_DURATIONS */
  jobDurations?: Partial<JobDurations>;
  /** Phase durations of new order runs. @default DEFAULT_ORDER_DURATIONS */
  orderDurations?: Partial<OrderDurations>;
  /** Deployment variants to play. @default DEFAULT_VARIANTS */
  variants?: Partial<SimVariants>;
  /** Prefix in front of `/api/v1` (the spec leaves the API's base open). @default '' */
  apiBasePath?: string;
  /** Keep state in this JSON file, so that a restarted simulator still knows its jobs. @default in memory */
  stateFile?: string;
  /** Largest accepted request body; larger ones get 413. @default 64 MiB */
  maxBodyBytes?: number;
  /** Called with one line per request (never with credentials). @default silent */
  log?: (line: string) => void;
}

export interface Simulator {
  app: FastifyInstance;
  controls: SimControls;
  seed: Seed;
  /** Saves the state file now (done after every request when `stateFile` is set). */
  persist(): void;
}

const HOUR = 3_600_000;

export function buildSimulator(options: SimulatorOptions = {}): Simulator {
  const seed = parseSeed(options.seed ?? defaultSeed);
  const jobDurations = { ...DEFAULT_JOB_DURATIONS, ...options.jobDurations };
  const orderDurations = { ...DEFAULT_ORDER_DURATIONS, ...options.orderDurations };
  const kept = options.stateFile ? loadStateFile(options.stateFile) : undefined;
  const state = kept ?? initialState(seed, jobDurations, orderDurations);
  const ctx: SimContext = {
    seed,
    state,
    clock: new SimClock(state.clock_offset_ms, options.manualClock ?? false),
    variants: { ...DEFAULT_VARIANTS, ...options.variants },
    tokenLifetimeMs: options.tokenLifetimeMs ?? 4 * HOUR,
    accessTokenLifetimeMs: options.accessTokenLifetimeMs ?? HOUR,
    groups: new Map(seed.table_groups.map((g) => [g.id, g])),
    kitchens: new Map(seed.kitchens.map((k) => [k.name, k])),
  };
  const faults = new FaultBook();
  const tick = () => {
    advanceJobs(ctx);
    advanceServings(ctx);
  };
  const persist = () => {
    if (!options.stateFile) return;
    state.clock_offset_ms = ctx.clock.offset;
    saveStateFile(options.stateFile, state);
  };

  const app = Fastify({
    logger: false,
    bodyLimit: options.maxBodyBytes ?? 64 * 1024 * 1024,
    forceCloseConnections: true,
    return503OnClosing: true,
  });
  void app.register(formbody);
  const { requests } = installHttp(app, { ctx, faults, tick, persist, log: options.log });
  void app.register(v2Routes, { ctx });
  void app.register(oauthRoutes, { ctx });
  void app.register(apiRoutes, { ctx, prefix: `${options.apiBasePath ?? ''}/api/v1` });
  const controls = createControls(ctx, { faults, tick, persist, requests });
  if (options.controls) void app.register(controlRoutes, { controls });

  return { app, controls, seed, persist };
}

export interface RunningSimulator extends Simulator {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Builds the simulator and listens (port 0 picks a free port). */
export async function startSimulator(
  options: SimulatorOptions & { port?: number; host?: string } = {},
): Promise<RunningSimulator> {
  const sim = buildSimulator(options);
  await sim.app.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
  const address = sim.app.server.address();
  if (!address || typeof address === 'string') throw new Error('simulator did not bind a TCP port');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    ...sim,
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: async () => {
      sim.persist();
      await sim.app.close();
    },
  };
}
