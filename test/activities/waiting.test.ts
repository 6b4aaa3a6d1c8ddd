import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CancelledFailure } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { activityFunctions, type ActivityDeps } from '../../src/activities/index.js';
import { untilNextPoll } from '../../src/activities/wait-progress.js';
import type { JobWaitOutcome, WaitProgress } from '../../src/contract/types.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { simDeps } from '../helpers/activities.js';
import { FROZEN, startTestSimulator } from '../helpers/sim.js';
import { eventually } from '../helpers/wait.js';
import { quiet, runIn as run, signalTaker } from '../helpers/mock-activity.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;

describe('waitForJob in a mock activity environment', () => {
  let sim: RunningSimulator;
  let deps: ActivityDeps;
  before(async () => {
    ({ sim } = await startTestSimulator({ jobDurations: FROZEN }));
    deps = await simDeps(sim);
  });
  after(async () => sim?.close());

  // The job to wait for, submitted straight through the service client: these tests are about the wait.
  const submit = async (kind: 'profiling' | 'tests', target: string) => {
    const { client } = deps.profiles.default!;
    const res = kind === 'profiling' ? await client.profilingRuns.submit(target) : await client.testRuns.submit(target);
    return res.id;
  };
  const jobPolls = (jobId: string) => sim.controls.requests().filter((r) => r.path === `/api/v1/jobs/${jobId}`);

  test('heartbeats after every poll with the status, claims and polls; never treats an unknown status as terminal', async () => {
    const jobId = await submit('tests', TS.financeProd);
    const env = new MockActivityEnvironment(undefined, quiet);
    const beats: WaitProgress[] = [];
    env.on('heartbeat', (d: WaitProgress) => beats.push(structuredClone(d)));
    sim.controls.addFault({ kind: 'unknown_status', unknown_status: 'quarantined', path: `/jobs/${jobId}`, count: 2 });
    const waiting = run(env, activityFunctions(deps).waitForJob, { jobId, pollIntervalMs: 20, maxPollIntervalMs: 40 });
    while (beats.length < 4) await new Promise((r) => setTimeout(r, 10));
    sim.controls.advanceClock(FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs);
    const result = await waiting;
    assert.equal(result.job.status, 'completed');
    assert.deepEqual(
      beats.slice(0, 2).map((b) => b.lastStatus),
      ['quarantined', 'quarantined'],
    );
    assert.equal(beats[2]?.lastStatus, 'pending');
    assert.equal(beats.at(-1)?.lastStatus, 'completed');
    assert.deepEqual(
      beats.map((b) => b.polls),
      beats.map((_, i) => i + 1),
    );
    assert.equal(result.polls, beats.length);
    assert.equal(result.claims, 1);
    assert.equal(result.durationMs, FROZEN.runMs, 'measured from started_at');
  });

  test('cancellation is seen within one poll interval, and aborts the HTTP call in flight', async () => {
    const jobId = await submit('tests', TS.financeProd);
    // 1) cancelled while sleeping between polls: a 10-minute interval, yet it ends after one poll
    const env = new MockActivityEnvironment(undefined, quiet);
    let beats = 0;
    env.on('heartbeat', () => beats++);
    const sleeping = run(env, activityFunctions(deps).waitForJob, {
      jobId,
      pollIntervalMs: 600_000,
      maxPollIntervalMs: 600_000,
    });
    while (beats < 1) await new Promise((r) => setTimeout(r, 5));
    env.cancel();
    await assert.rejects(sleeping, (err) => err instanceof CancelledFailure);
    assert.equal(jobPolls(jobId).length, 1, 'no second poll: the sleep was interrupted');

    // 2) cancelled while the HTTP call is in flight: the request is aborted, the server sees the client leave
    const env2 = new MockActivityEnvironment(undefined, quiet);
    sim.controls.addFault({ kind: 'delay', delay_ms: 5_000, path: `/jobs/${jobId}` });
    const inFlight = run(env2, activityFunctions(deps).waitForJob, { jobId, pollIntervalMs: 20 });
    let entry;
    setTimeout(() => env2.cancel(), 100);
    await assert.rejects(inFlight, (err) => err instanceof CancelledFailure);
    for (let i = 0; i < 100 && !entry; i++) {
      entry = jobPolls(jobId).find((r) => r.fault === 'delay');
      if (!entry) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(entry?.client_closed, true, 'the request in flight was aborted');
  });

  test('with a heartbeat timeout, a poll is not a heartbeat of its own; a status report is recorded at once', async () => {
    const jobId = await submit('tests', TS.financeProd);
    // Only the report's signal is the client's business here: the workflow it tells does not exist.
    const { client, signals: reports } = signalTaker();
    // A 20 s heartbeat timeout: the latest details go with a beat every 5 s while the wait waits (heartbeats.ts).
    const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 20_000 }, { ...quiet, client });
    const beats: WaitProgress[] = [];
    env.on('heartbeat', (d: WaitProgress) => beats.push(structuredClone(d)));
    const waiting = run(env, activityFunctions(deps).waitForJob, { jobId, pollIntervalMs: 20, maxPollIntervalMs: 20 });
    await eventually('five polls of the pending job', async () => jobPolls(jobId).length >= 5, { delayMs: 10 });
    // Were a poll's progress beat rather than noted, every poll would be a heartbeat (the mock does not throttle).
    assert.ok(beats.length <= 1, `${beats.length} heartbeats for ${jobPolls(jobId).length} polls`);
    sim.controls.advanceClock(FROZEN.pendingMs + FROZEN.claimMs);
    await eventually('the running status reported', async () => reports.length === 1, { delayMs: 10 });
    // The report's heartbeat follows its signal in the same chain of microtasks: it is there before this check runs.
    const recorded = beats.find((b) => b.reports === 1);
    assert.equal(recorded?.reportedStatus, 'running', 'recorded at once, so a retry will not report it again');
    sim.controls.advanceClock(FROZEN.runMs);
    const result = await waiting;
    assert.equal(result.job.status, 'completed');
    assert.equal(reports.length, 1);
  });

  test('carries on from the heartbeat details of an earlier attempt', async () => {
    const jobId = await submit('tests', TS.financeProd);
    sim.controls.advanceClock(FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs);
    const prior: WaitProgress = {
      lastStatus: 'running',
      claimsSeen: ['2026-01-01T00:00:00.000Z'],
      interrupts: 1,
      polls: 41,
      statusSince: null,
      reportedStatus: 'running',
      reportedAt: null,
      reports: 1,
    };
    const env = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: prior }, quiet);
    const result = await run(env, activityFunctions(deps).waitForJob, { jobId });
    assert.equal(result.polls, 42);
    assert.equal(result.interrupts, 1);
    assert.equal(result.claims, 2);
  });

  test('an interrupted profiling run: waits through the interrupt; counts interrupts and claims; duration from started_at', async () => {
    const jobId = await submit('profiling', TG.finance);
    const env = new MockActivityEnvironment(undefined, quiet);
    const statuses: string[] = [];
    env.on('heartbeat', (d: WaitProgress) => {
      if (statuses.at(-1) !== d.lastStatus) statuses.push(d.lastStatus ?? '');
    });
    const waiting = run(env, activityFunctions(deps).waitForJob, { jobId, pollIntervalMs: 20, maxPollIntervalMs: 20 });
    const until = async (s: string) => {
      while (statuses.at(-1) !== s) await new Promise((r) => setTimeout(r, 5));
    };
    await until('pending');
    sim.controls.advanceClock(FROZEN.pendingMs + FROZEN.claimMs + 100_000);
    await until('running');
    sim.controls.shutdownScheduler();
    sim.controls.advanceClock(FROZEN.interruptMs);
    await until('interrupted');
    sim.controls.advanceClock(3_600_000); // an hour stopped: still waiting, interrupted is not terminal
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(statuses.at(-1), 'interrupted');
    sim.controls.restartScheduler();
    sim.controls.advanceClock(FROZEN.claimMs + FROZEN.runMs);
    const result: JobWaitOutcome = await waiting;
    assert.equal(result.job.status, 'completed');
    assert.deepEqual(
      statuses,
      ['pending', 'running', 'interrupt_requested', 'interrupted', 'claimed', 'completed'].filter((s) =>
        statuses.includes(s),
      ),
    );
    assert.ok(statuses.includes('interrupted'));
    assert.equal(result.interrupts, 1);
    assert.equal(result.claims, 2);
    const started = Date.parse(result.job.started_at ?? '');
    const claimed = Date.parse(result.job.claimed_at ?? '');
    assert.ok(claimed > started, 'the last claim is later than started_at');
    assert.equal(result.durationMs, Date.parse(result.job.completed_at ?? '') - started);
    assert.ok(
      result.durationMs > FROZEN.runMs + 3_600_000,
      'the downtime counts: measured from started_at, not claimed_at',
    );
  });

  test('polls start every poll interval: a slow answer shortens the sleep after it, to half an interval at least', async () => {
    const jobId = await submit('tests', TS.financeProd);
    const env = new MockActivityEnvironment(undefined, quiet);
    const sleeps: number[] = [];
    const sleep = env.context.sleep;
    Object.assign(env.context, { sleep: (ms: number) => (sleeps.push(ms), sleep(ms)) });
    // The first two polls take at least 150 ms: each sleep after them is what is left of the 400 ms interval (at most
    // 250 ms), and never under half of it (200 ms). Without the cadence it is the whole 400 ms.
    sim.controls.addFault({ kind: 'delay', delay_ms: 150, path: `/jobs/${jobId}`, count: 2 });
    const waiting = run(env, activityFunctions(deps).waitForJob, {
      jobId,
      pollIntervalMs: 400,
      maxPollIntervalMs: 400,
    });
    await eventually('two sleeps', () => sleeps.length >= 2, { tries: 200, delayMs: 20 });
    sim.controls.advanceClock(FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs);
    assert.equal((await waiting).job.status, 'completed');
    for (const ms of sleeps.slice(0, 2)) assert.ok(ms >= 200 && ms <= 250, `slept ${ms} ms after a slow answer`);
  });

  test('the next poll: what is left of the interval since the last one started, at least half an interval', () => {
    assert.equal(untilNextPoll(10_000, 1_000, 10_000), 1_000);
    assert.equal(untilNextPoll(10_000, 1_000, 10_300), 700);
    assert.equal(untilNextPoll(10_000, 1_000, 10_900), 500);
    assert.equal(untilNextPoll(10_000, 1_000, 15_000), 500);
  });

  test('checkJob (deferrable): one poll per attempt, a benign retryable JobStillRunning until terminal', async () => {
    const jobId = await submit('tests', TS.financeProd);
    const env = new MockActivityEnvironment({ attempt: 3 }, quiet);
    await assert.rejects(run(env, activityFunctions(deps).checkJob, { jobId }), (err) => {
      assert.ok(err instanceof ApplicationFailure);
      assert.equal(err.type, 'JobStillRunning');
      assert.equal(err.nonRetryable, false);
      assert.equal(err.category, 'BENIGN');
      return true;
    });
    assert.equal(jobPolls(jobId).length, 1, 'exactly one poll per attempt');
    sim.controls.advanceClock(FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs);
    const done = await run(new MockActivityEnvironment({ attempt: 4 }, quiet), activityFunctions(deps).checkJob, {
      jobId,
    });
    assert.equal(done.job.status, 'completed');
    assert.equal(done.polls, 4);
  });

  test('cancelJob is idempotent: repeated on cancel_requested, and a terminal job counts as success', async () => {
    const jobId = await submit('tests', TS.financeProd);
    const acts = activityFunctions(deps);
    const env = new MockActivityEnvironment(undefined, quiet);
    const first = await run(env, acts.cancelJob, { jobId });
    assert.deepEqual([first.job.status, first.alreadyTerminal], ['cancel_requested', false]);
    const again = await run(env, acts.cancelJob, { jobId });
    assert.deepEqual([again.job.status, again.alreadyTerminal], ['cancel_requested', false]);
    sim.controls.advanceClock(FROZEN.cancelMs);
    const late = await run(env, acts.cancelJob, { jobId });
    assert.deepEqual([late.job.status, late.alreadyTerminal], ['canceled', true]);
    const done = await submit('tests', TS.financeProd);
    sim.controls.advanceClock(FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs);
    const completed = await run(env, acts.cancelJob, { jobId: done });
    assert.deepEqual([completed.job.status, completed.alreadyTerminal], ['completed', true]);
    assert.equal(sim.controls.counters().cancels[done], 1);
  });

  test('summaries map to the contract shapes; login returns no token', async () => {
    const acts = activityFunctions(deps);
    const env = new MockActivityEnvironment(undefined, quiet);
    const tid = await submit('tests', TS.financeProd);
    const pid = await submit('profiling', TG.sales);
    sim.controls.advanceClock(FROZEN.pendingMs + FROZEN.claimMs + FROZEN.runMs);
    const ts = await run(env, acts.getTestRunSummary, { jobId: tid });
    assert.deepEqual(
      [ts.scorePercent, ts.resultCounts],
      [33.3, { passed: 1, failed: 1, warning: 0, error: 1, log: 0, dismissed: 1 }],
    );
    const ps = await run(env, acts.getProfilingSummary, { jobId: pid });
    assert.deepEqual(
      [
        ps.scorePercent,
        ps.tableCount,
        ps.columnCount,
        ps.recordCount,
        ps.hygieneIssues,
        ps.potentialPii,
        ps.dismissedIssues,
      ],
      [63.9, 2, 9, 155_000, { definite: 1, likely: 2, possible: 3 }, { high: 1, moderate: 1 }, 1],
    );
    const gen = await run(env, acts.findGenerationJob, { tableGroupId: TG.sales, after: ps.completedAt! });
    assert.equal(gen?.job_key, 'run-test-generation');
    const who = await run(env, acts.login, {});
    assert.deepEqual(Object.keys(who).sort(), ['expiresAt', 'username']);
  });
});
