/**
 * The fault matrix's world: a Temporal dev server process on a database file (so it can be killed and restarted),
 * the simulator process on a state file (likewise), worker processes, and typed access to the simulator's controls.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { localServersConfig } from '../../src/config/local-servers.js';
import { resolveDevServer } from '../../src/local/temporal-servers.js';
import type { JobRecord } from '../../src/simulator/index.js';
import type { Fault, FaultInput } from '../../src/simulator/faults.js';
import type { SeedInput } from '../../src/simulator/index.js';
import {
  dist,
  failIfExited,
  freePorts,
  simControls,
  startProcess,
  startWorkerProcess,
  type Proc,
  simulatorService,
} from './processes.js';
import { matrixSeed } from './matrix.js';
import { eventually } from './wait.js';

export interface SimOrder {
  id: string;
  recipe: string;
  created_at: string;
  servings: { hid: string; status: string }[];
}

/** The simulator's controls over HTTP. */
export class SimControls {
  private readonly send = simControls(() => this.url);
  constructor(readonly url: string) {}

  call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.send(method, path, body) as Promise<T>;
  }
  addFault = (f: FaultInput) => this.call<Fault>('POST', '/_sim/faults', f);
  faults = () => this.call<Fault[]>('GET', '/_sim/faults');
  /** What delay fault `id` holds goes on now. */
  releaseFault = (id: string) => this.call('POST', `/_sim/faults/${id}/release`, {});
  /** How many requests fault `id` took so far. */
  hits = async (id: string) => (await this.faults()).find((f) => f.id === id)?.hits ?? 0;
  clearFaults = () => this.call('DELETE', '/_sim/faults');
  jobs = () => this.call<JobRecord[]>('GET', '/_sim/jobs');
  orders = () => this.call<SimOrder[]>('GET', '/_sim/orders');
  definitions = (suiteId: string) => this.call<unknown[]>('GET', `/_sim/test-suites/${suiteId}/definitions`);
  jobDurations = (d: Record<string, number>, jobId?: string) =>
    this.call('PUT', jobId ? `/_sim/jobs/${jobId}/durations` : '/_sim/job-durations', d);
  planJobs = (plan: { job_key?: string; target_id?: string; durations?: Record<string, number> }) =>
    this.call('POST', '/_sim/job-plans', plan);
  clearJobPlans = () => this.call<{ cleared: number }>('DELETE', '/_sim/job-plans');
  orderDurations = (d: Record<string, number>) => this.call('PUT', '/_sim/order-durations', d);
  expireTokens = () => this.call('POST', '/_sim/tokens/expire', {});
  requests = () => this.call<{ method: string; path: string }[]>('GET', '/_sim/requests');
}

const PORT_TAKEN = /EADDRINUSE|address already in use/;
const PORT_TAKEN_TRIES = 10;

/** A process that can be killed and started again with the same arguments (same port, same file). */
export class Restartable {
  proc: Proc | undefined;
  constructor(
    private readonly start: () => Proc,
    private readonly ready: (p: Proc) => boolean | Promise<boolean>,
    private readonly what: string,
  ) {}
  /**
   * Starts it and waits until it is ready; a process that exits first fails at once, with what it said. Its port is
   * fixed, so another process may hold it for a moment (a client socket's ephemeral port, a concurrent server's
   * internal one): a start that finds the port taken is tried again, a few times.
   */
  async up(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const p = this.start();
      this.proc = p;
      const ready = () => {
        failIfExited(p.child, this.what, p.output());
        return this.ready(p);
      };
      try {
        await eventually(this.what, ready, { tries: 1_200, delayMs: 50 });
        return;
      } catch (err) {
        if (attempt >= PORT_TAKEN_TRIES || !PORT_TAKEN.test(String(err))) throw err;
        await sleep(500);
      }
    }
  }
  async kill(): Promise<void> {
    await this.proc?.stop('SIGKILL');
  }
}

export interface World {
  temporal: Restartable;
  address: string;
  /** The dev server's Prometheus endpoint (`/metrics`): its requests and persistence operations, by name. */
  temporalMetricsUrl: string;
  sim: Restartable;
  controls: SimControls;
  client: Client;
  workers: Proc[];
  startWorker: (taskQueue: string, env?: Record<string, string>) => Proc;
  close: () => Promise<void>;
}

export interface WorldOptions {
  /** Temporal on a database file (restartable, the default) or in memory (the benchmarks). */
  temporalDb?: 'file' | 'memory';
  /** The simulator's state file (restartable, the default), or none (no disk writes). */
  simState?: 'file' | 'none';
  /** Dynamic config values for the dev server (key to JSON value), beyond its defaults: the benchmark's experiments. */
  serverConfig?: Record<string, string>;
  /** The simulator's deployment variants beyond the world's own (`listingTargets`), as its `--variants` takes them. */
  variants?: Record<string, unknown>;
}

/** Starts the dev server, the simulator and nothing else; workers come per task queue. */
export async function startWorld(seed: SeedInput, options: WorldOptions = {}): Promise<World> {
  const { temporalDb = 'file', simState = 'file' } = options;
  const dir = mkdtempSync(join(tmpdir(), 'fault-matrix-'));
  const seedFile = join(dir, 'seed.json');
  writeFileSync(seedFile, JSON.stringify(seed));
  const server = resolveDevServer(localServersConfig());
  if (!server.path) throw new Error('the fault matrix needs the installed Temporal CLI (npm run install-temporal)');
  const cli = server.path;
  const [tPort, simPort, metricsPort] = (await freePorts(3)) as [number, number, number];
  const address = `127.0.0.1:${tPort}`;
  const temporal = new Restartable(
    () =>
      startProcess(
        [
          'server',
          'start-dev',
          '--headless',
          '--ip',
          '127.0.0.1',
          '--port',
          String(tPort),
          '--metrics-port',
          String(metricsPort),
          ...(temporalDb === 'file' ? ['--db-filename', join(dir, 'temporal.db')] : []),
          '--log-level',
          'error',
          ...Object.entries(options.serverConfig ?? {}).flatMap(([k, v]) => ['--dynamic-config-value', `${k}=${v}`]),
        ],
        {},
        cli,
      ),
    async () => {
      try {
        const c = await Connection.connect({ address, connectTimeout: 500 });
        await c.close();
        return true;
      } catch {
        return false;
      }
    },
    'the Temporal dev server',
  );
  const sim = new Restartable(
    () =>
      startProcess(
        [
          dist('simulator/server.js'),
          '--port',
          String(simPort),
          '--controls',
          '--seed',
          seedFile,
          ...(simState === 'file' ? ['--state-file', join(dir, 'sim-state.json')] : []),
          // Job objects name their targets (the spec's shape): without them, a lost submission's lookup reads the
          // run records of other cells' jobs, which would take faults armed for those cells. Lookups without
          // targets (TestGen's shape, the default) are tested in test/activities/exactly-once.test.ts.
          '--variants',
          JSON.stringify({ listingTargets: true, ...options.variants }),
        ],
        {},
      ),
    (p) => p.output().includes('listening on'),
    'the simulator',
  );
  let connection: Connection;
  try {
    await Promise.all([temporal.up(), sim.up()]);
    connection = await Connection.connect({ address });
  } catch (err) {
    // A server left running would keep the test process alive after its failure, and the run would never end.
    await Promise.allSettled([temporal.kill(), sim.kill()]);
    throw err;
  }
  const url = `http://127.0.0.1:${simPort}`;
  const workers: Proc[] = [];
  const blobs = join(dir, 'blobs');
  const startWorker = (taskQueue: string, env: Record<string, string> = {}) => {
    const w = startWorkerProcess({
      TEMPORAL_ADDRESS: address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      ...simulatorService(url),
      DATAOPS_BLOB_DIR: blobs,
      DATAOPS_TIMEOUT_MS: '1000',
      DATAOPS_SUBMIT_SETTLE_MS: '5000',
      LOG_LEVEL: 'WARN',
      ...env,
    });
    workers.push(w);
    return w;
  };
  return {
    temporal,
    address,
    temporalMetricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    sim,
    controls: new SimControls(url),
    client: new Client({ connection }),
    workers,
    startWorker,
    close: async () => {
      await Promise.all(workers.map((w) => w.stop('SIGKILL')));
      await connection.close();
      await sim.kill();
      await temporal.kill();
      rmSync(dir, { recursive: true, force: true }); // the seed, the state files, the claim checks
    },
  };
}

/** The matrix's job durations: about a second from creation to the end. */
export const ABOUT_A_SECOND = { pendingMs: 200, claimMs: 100, runMs: 600, cancelMs: 200 };

/**
 * Registers a `describe` block's hooks for a world of `cells` matrix cells whose jobs take about a second (the
 * worker-death tests): started before its tests, closed after. Returns the world, once `before` has run.
 */
export function worldOfCells(cells: number, setUp = { timeout: 10 * 60_000 }, options: WorldOptions = {}): () => World {
  let w: World | undefined;
  before(async () => {
    w = await startWorld(matrixSeed(cells), options);
    await w.controls.jobDurations(ABOUT_A_SECOND);
  }, setUp);
  after(async () => w?.close());
  return () => w!;
}
