/**
 * Runs one drawn schedule (draw.ts) in a world (the fault matrix's: a Temporal dev server and the simulator as
 * processes, workers as processes): a fresh simulator and a task queue of its own per seed, two workers on it, each
 * step at its instant. Answers what the oracle (oracle.ts) judges: how each workflow ended, and the simulator's record
 * of every job and order with the request that created it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { JobRecord } from '../../src/simulator/index.js';
import type { Proc } from '../helpers/processes.js';
import { cellIds, matrixSeed } from '../helpers/matrix.js';
import { startWorld, type SimOrder, type World } from '../helpers/matrix-world.js';
import { SEED_USERS } from '../../src/simulator/index.js';
import type { Requester, Schedule } from './draw.js';
import type { temporal } from '@temporalio/proto';

/**
 * The events of workflow tasks that timed out or failed (a worker killed or frozen holding one, a task left on a dead
 * worker's sticky queue): each, its scheduled event and, if it started, its started event. Temporal retries such a
 * task; the workflow's own events are the rest.
 */
export function retriedTaskEvents(events: temporal.api.history.v1.IHistoryEvent[]): number {
  let n = 0;
  for (const e of events) {
    const attempt = e.workflowTaskTimedOutEventAttributes ?? e.workflowTaskFailedEventAttributes;
    if (attempt) n += 2 + (Number(attempt.startedEventId ?? 0) > 0 ? 1 : 0);
  }
  return n;
}

/** How a requester's workflow ended, as the oracle reads it. */
export interface Ended {
  requester: Requester;
  workflowId: string;
  outcome: 'ok' | 'failed' | 'cancelled' | 'outlived';
  /** The result, or every message and detail of the failure chain, as text (what it reports). */
  reported: string;
  startedAt: number;
  closedAt: number;
  /** When the explorer asked for its cancel (worker clock), if it did. */
  cancelAskedAt?: number;
  historyLength: number;
  /** Of those, the events of workflow tasks that timed out or failed: Temporal's retries, not the workflow's own. */
  retriedTaskEvents: number;
}

export interface SeedRun {
  seed: number;
  /** The seed's task queue: its requesters' and their submitters' workflows. */
  queue: string;
  /** Each worker process's output, restarts included. */
  workerLogs: string[];
  ended: Ended[];
  jobs: JobRecord[];
  orders: (SimOrder & { request_id?: string | null })[];
  skewMs: number;
}

/** The longest a requester may live: its job waits (maxWaitMs each), its cancel's budget, and room for outages. */
export const MAX_WAIT_MS = 60_000;
export const CANCEL_TIMEOUT_MS = 20_000;
export const lifeBoundMs = (r: Requester) => (r.kind === 'pipeline' ? 2 : 1) * MAX_WAIT_MS + CANCEL_TIMEOUT_MS + 60_000;

const TYPES = {
  profile: 'dataops.profileTableGroup',
  tests: 'dataops.runTestSuite',
  pipeline: 'dataops.dataQualityPipeline',
  order: 'dataops.runOrder',
} as const;

function argsOf(r: Requester) {
  const ids = cellIds(r.cell);
  const job = {
    pollIntervalMs: 200,
    maxPollIntervalMs: 400,
    heartbeatTimeoutMs: 5_000,
    cancelTimeoutMs: CANCEL_TIMEOUT_MS,
    maxWaitMs: MAX_WAIT_MS,
    waitStrategy: r.waitStrategy,
    statusReports: r.statusReports,
    ...(r.leaveRunning ? { cancelRemoteJob: false } : {}),
  };
  switch (r.kind) {
    case 'profile':
      return { ...job, tableGroupId: ids.tableGroup };
    case 'tests':
      return { ...job, testSuiteId: ids.target };
    case 'pipeline':
      return { ...job, tableGroupId: ids.tableGroup, testSuiteId: ids.target, testGeneration: 'skip' };
    case 'order':
      return {
        kitchen: 'production',
        recipe: 'refresh-marts',
        variation: 'full',
        wait: true,
        pollIntervalMs: 200,
        cancelTimeoutMs: CANCEL_TIMEOUT_MS,
      };
  }
}

/** Every message and detail of a failure chain, as one text. */
function failureText(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  while (e instanceof Error) {
    parts.push(e.message);
    const details = (e as { details?: unknown }).details;
    if (details !== undefined) parts.push(JSON.stringify(details));
    e = e.cause;
  }
  return parts.join(' | ');
}

async function outcomeOf(handle: WorkflowHandle, boundAt: number): Promise<Pick<Ended, 'outcome' | 'reported'>> {
  const timer = new AbortController();
  const result = handle.result().then(
    (r) => ({ outcome: 'ok' as const, reported: JSON.stringify(r) }),
    (err: unknown) => ({
      outcome:
        err instanceof WorkflowFailedError && err.cause?.name === 'CancelledFailure'
          ? ('cancelled' as const)
          : ('failed' as const),
      reported: failureText(err),
    }),
  );
  const outlived = sleep(Math.max(0, boundAt - Date.now()), undefined, { signal: timer.signal }).then(
    () => ({ outcome: 'outlived' as const, reported: '' }),
    () => ({ outcome: 'outlived' as const, reported: '' }),
  );
  const first = await Promise.race([result, outlived]);
  timer.abort();
  if (first.outcome === 'outlived') await handle.terminate('the explorer: outlived its bound').catch(() => undefined);
  return first;
}

/** A session of the seed's admin, the account our workers use: another client of the same account. */
async function adminToken(url: string): Promise<string> {
  const { username, password } = SEED_USERS.admin;
  const login = await fetch(`${url}/v2/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username, password }),
  });
  const token = (await login.text()).trim();
  return token;
}

/** Submits a job as another API client of the same account would. */
async function foreignApiJob(url: string, jobKey: string, cell: number): Promise<void> {
  const token = await adminToken(url);
  const ids = cellIds(cell);
  const path =
    jobKey === 'run-profile'
      ? `/api/v1/table-groups/${ids.tableGroup}/profiling-runs`
      : `/api/v1/test-suites/${ids.target}/test-runs`;
  await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } }).catch(
    () => undefined, // an armed fault may take it: another client's trouble
  );
}

/** An order of the recipe our order requesters run, created by a person with the same account, in the UI. */
async function foreignOrder(url: string): Promise<void> {
  const token = await adminToken(url);
  await fetch(`${url}/v2/order/create/production/refresh-marts/full`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ parameters: {}, schedule: 'now' }),
  }).catch(() => undefined);
}

/**
 * The world seeds run in: a dev server in memory, the simulator without a state file (a fresh one per seed), and
 * targets for the most cells a schedule draws plus one, the other table group of a long listing.
 */
export const startExploreWorld = (): Promise<World> =>
  startWorld(matrixSeed(4), { temporalDb: 'memory', simState: 'none' });

/** Runs schedule `s` in world `w`. */
export async function runSeed(w: World, s: Schedule): Promise<SeedRun> {
  await w.sim.kill();
  await w.sim.up(); // a fresh simulator: the seed file's state, nothing of an earlier seed
  const url = w.controls.url;
  await w.controls.jobDurations({ pendingMs: 200, claimMs: 100, runMs: 2_500, cancelMs: 200 });
  await w.controls.orderDurations({ plannedMs: 300, runMs: 2_500 });
  if (s.skewMs) await w.controls.call('POST', '/_sim/clock/advance', { ms: s.skewMs });
  const queue = `explore-${s.seed}-${Date.now()}`;
  const env = { DATAOPS_SOLE_WRITER: String(s.soleWriter) };
  const started: Proc[] = [];
  const startWorker = () => {
    const p = w.startWorker(queue, env);
    started.push(p);
    return p;
  };
  const workers: (Proc | undefined)[] = [startWorker(), startWorker()];
  await sleep(1_500); // both polling before the first start
  const t0 = Date.now();
  const at = (ms: number) => sleep(Math.max(0, t0 + ms - Date.now()));
  const running: Promise<Ended>[] = [];
  const requesters = s.requesters.map(async (r) => {
    await at(r.startAt);
    const workflowId = `${queue}-${r.name}`;
    const startedAt = Date.now();
    const handle = await w.client.workflow.start(TYPES[r.kind], { taskQueue: queue, workflowId, args: [argsOf(r)] });
    let cancelAskedAt: number | undefined;
    const cancel =
      r.cancelAt === undefined
        ? undefined
        : at(r.cancelAt).then(async () => {
            cancelAskedAt = Date.now();
            await handle.cancel().catch(() => undefined); // already over
          });
    const end = await outcomeOf(handle, startedAt + lifeBoundMs(r));
    await cancel;
    const d = await handle.describe();
    const { events } = await handle.fetchHistory();
    return {
      requester: r,
      workflowId,
      ...end,
      startedAt,
      closedAt: d.closeTime?.getTime() ?? Date.now(),
      ...(cancelAskedAt !== undefined && cancelAskedAt <= (d.closeTime?.getTime() ?? Infinity)
        ? { cancelAskedAt }
        : {}),
      historyLength: d.historyLength,
      retriedTaskEvents: retriedTaskEvents(events ?? []),
    };
  });
  running.push(...requesters);
  const steps = s.steps.map(async (step) => {
    await at(step.at);
    switch (step.what) {
      case 'fault':
        await w.controls.addFault(step.fault);
        return;
      case 'kill': {
        await workers[step.worker]?.stop('SIGKILL');
        workers[step.worker] = undefined;
        await sleep(step.downMs);
        workers[step.worker] = startWorker();
        return;
      }
      case 'freeze': {
        const frozen = workers[step.worker]?.child;
        const alive = () => frozen !== undefined && frozen.exitCode === null && frozen.signalCode === null;
        if (alive()) frozen?.kill('SIGSTOP');
        await sleep(step.frozenMs);
        if (alive()) frozen?.kill('SIGCONT'); // unless killed meanwhile (a kill step)
        return;
      }
      case 'foreign': {
        const { cell, as, ...jobs } = step.jobs;
        if (as === 'api') await foreignApiJob(url, jobs.job_key, cell);
        else {
          const ids = cellIds(cell);
          const target = jobs.job_key === 'run-profile' ? ids.tableGroup : ids.target;
          await w.controls.call('POST', '/_sim/jobs', { ...jobs, target_id: target, source: 'scheduler' });
        }
        return;
      }
      case 'person-order':
        await foreignOrder(url);
        return;
      case 'long-listing':
        // Another table group's history, newer than anything of ours so far: the listing a lookup pages through.
        await w.controls.call('POST', '/_sim/jobs', {
          job_key: 'run-profile',
          target_id: cellIds(s.cells).tableGroup,
          created_by: SEED_USERS.admin.username,
          count: step.count,
          completed: true,
        });
    }
  });
  // Every requester and step settles before the seed ends, and its workers stop, even when one failed: a step left
  // running would arm a fault or kill a worker in the next seed's world, and its rejection would end the explorer.
  const [requested, stepped] = await Promise.all([Promise.allSettled(running), Promise.allSettled(steps)]);
  try {
    const failed = [...requested, ...stepped].find((x) => x.status === 'rejected');
    if (failed) throw failed.reason;
    const ended = requested.map((x) => (x as PromiseFulfilledResult<Ended>).value);
    await w.controls.clearFaults();
    await sleep(2_500); // a cancel's last transition (the oracle allows 2 s)
    const [jobs, orders] = await Promise.all([w.controls.jobs(), w.controls.orders()]);
    return { seed: s.seed, queue, workerLogs: started.map((p) => p.output()), ended, jobs, orders, skewMs: s.skewMs };
  } finally {
    // Every worker it started: two kills of one worker that overlap start two, and only the later is in `workers`.
    await Promise.all(started.map((p) => p.stop('SIGKILL')));
  }
}
