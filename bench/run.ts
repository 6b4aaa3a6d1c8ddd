/**
 * Benchmarks, reported as ratios measured side by side in one run (the machine is shared and noisy, so absolute
 * times mean little; nothing here passes or fails). `npm run bench`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDirectoryBlobStore } from '../src/activities/index.js';
import { ServiceClient } from '../src/api/index.js';
import type { DataQualityPipelineResult } from '../src/contract/index.js';
import { SEED_IDS, SEED_USERS, startSimulator } from '../src/simulator/index.js';
import { BULK, bulkSeed } from '../test/helpers/bulk-seed.js';
import { simDeps, withProjectWorker } from '../test/helpers/activities.js';
import { startTimeSkippingEnv } from '../test/helpers/temporal.js';

const rows: [string, string, string, string][] = [];
const ms = (n: number) => `${n.toFixed(1)} ms`;
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}
const best = async (runs: number, fn: () => Promise<unknown>) => {
  let min = Infinity;
  for (let i = 0; i < runs; i++) min = Math.min(min, await timed(fn));
  return min;
};

async function clientKeepAlive(): Promise<void> {
  const sim = await startSimulator({ port: 0 });
  const make = (keepAlive: boolean) =>
    new ServiceClient({ baseUrl: sim.url, credentials: { ...SEED_USERS.admin }, keepAlive, maxSockets: 50 });
  const warm = make(true);
  const cold = make(false);
  await Promise.all([warm.login(), cold.login()]);
  const seq = (c: ServiceClient) => async () => {
    for (let i = 0; i < 200; i++) await c.jobs.list('DEMO', { limit: 1 });
  };
  const par = (c: ServiceClient) => () =>
    Promise.all(Array.from({ length: 200 }, () => c.jobs.list('DEMO', { limit: 1 })));
  for (const [label, job] of [
    ['200 sequential calls', seq],
    ['200 calls, 50 concurrent', par],
  ] as const) {
    const a = await best(3, job(warm));
    const b = await best(3, job(cold));
    rows.push([
      `client: ${label}`,
      `keep-alive ${ms(a)}`,
      `fresh connections ${ms(b)}`,
      `fresh/keep-alive time ${(b / a).toFixed(2)}× (above 1: keep-alive helps)`,
    ]);
  }
  warm.close();
  cold.close();
  await sim.close();
}

async function importScaling(): Promise<void> {
  const perDef: number[] = [];
  for (const n of [5_000, 20_000]) {
    const sim = await startSimulator({ port: 0, seed: bulkSeed(n) });
    const c = new ServiceClient({ baseUrl: sim.url, credentials: { ...SEED_USERS.admin } });
    const file = await c.testDefinitions.export(BULK.source);
    const t = await best(3, () =>
      c.testDefinitions.import(
        BULK.target,
        { mode: 'preview', on_match: 'overwrite_all', on_new: 'create', on_absence: 'delete_all' },
        file,
      ),
    );
    perDef.push(t / n);
    rows.push([`import preview of ${n} definitions`, ms(t), `${((t / n) * 1000).toFixed(1)} µs/definition`, '']);
    c.close();
    await sim.close();
  }
  rows.push([
    'import scaling 5k → 20k',
    '',
    '',
    `${(perDef[1]! / perDef[0]!).toFixed(2)}× time per definition (1.0 = linear)`,
  ]);
}

async function waitingHistory(): Promise<void> {
  const t = await startTimeSkippingEnv();
  const sim = await startSimulator({ port: 0, jobDurations: { pendingMs: 100, claimMs: 100, runMs: 4_000 } });
  const dir = mkdtempSync(join(tmpdir(), 'bench-waiting-')); // the claim checks and exports: removed at the end
  const deps = await simDeps(sim, {
    store: new LocalDirectoryBlobStore(join(dir, 'blobs')),
    exportDir: join(dir, 'exports'),
  });
  const events: Record<string, number> = {};
  for (const strategy of ['heartbeat', 'deferrable'] as const) {
    await withProjectWorker(t.env, deps, async (taskQueue) => {
      const handle = await t.env.client.workflow.start('dataops.runTestSuite', {
        taskQueue,
        workflowId: `bench-${strategy}-${taskQueue}`,
        args: [
          {
            testSuiteId: SEED_IDS.testSuites.financeProd,
            waitStrategy: strategy,
            pollIntervalMs: 100,
            maxPollIntervalMs: 100,
          },
        ],
      });
      const r = (await handle.result()) as DataQualityPipelineResult['testRun'];
      events[strategy] = (await handle.fetchHistory()).events?.length ?? 0;
      rows.push([
        `waiting: ${strategy}`,
        `${events[strategy]} history events`,
        `${r.job.wait.polls} polls${strategy === 'deferrable' ? ' (the test server skips retry intervals)' : ''}`,
        '',
      ]);
    });
  }
  rows.push([
    'waiting: history per strategy',
    '',
    '',
    `deferrable/heartbeat events ${(events.deferrable! / events.heartbeat!).toFixed(2)}× (both constant in the job length)`,
  ]);
  deps.profiles.default?.client.close();
  await sim.close();
  await t.env.teardown();
  rmSync(dir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  await clientKeepAlive();
  await importScaling();
  await waitingHistory();
  const width = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows)
    console.log(
      r
        .map((c, i) => c.padEnd(width[i]!))
        .join('  ')
        .trimEnd(),
    );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
