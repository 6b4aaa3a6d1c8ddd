/**
 * Heartbeats through the SDK's throttle only (src/activities/heartbeats.ts): no ticker runs on its own. An activity
 * beats while it waits: a request to the service longer than its heartbeat timeout keeps it alive, on a real worker
 * and dev server; a wait that settles within a quarter of the timeout costs no heartbeat; details noted meanwhile go
 * with the next beat; until the body beats, a beat repeats what the previous attempt left.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MockActivityEnvironment } from '@temporalio/testing';
import { beat, beatingWhile, heartbeating, note } from '../../src/activities/heartbeats.js';
import { runActivity, simDeps } from '../helpers/activities.js';
import { quiet, runIn } from '../helpers/mock-activity.js';
import { FROZEN, faultHits, startTestSimulator } from '../helpers/sim.js';
import { startDevServerEnv, type TestEnv } from '../helpers/temporal.js';
import { SEED_IDS } from '../../src/simulator/index.js';

/** A mock activity with a 400 ms heartbeat timeout (beats every 100 ms while it waits), and the beats it sent. */
function mock(heartbeatDetails?: unknown) {
  const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 400, heartbeatDetails }, quiet);
  const beats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => beats.push(d));
  return { env, beats };
}

describe('a wait beats, nothing else does', () => {
  test('a wait shorter than a quarter of the timeout sends nothing; a longer one beats its latest details', async () => {
    const { env, beats } = mock();
    await runIn(env, async () => {
      note({ polls: 1 });
      await beatingWhile(sleep(20));
      assert.deepEqual(beats, [], 'settled within its slice: no heartbeat');
      note({ polls: 2 });
      await beatingWhile(sleep(450));
    });
    assert.ok(beats.length >= 3, `${beats.length} beats in 450 ms at one per 100 ms`);
    assert.ok(
      beats.every((b) => JSON.stringify(b) === '{"polls":2}'),
      `each carries the noted details: ${JSON.stringify(beats)}`,
    );
  });

  test('until the body beats, a beat repeats the previous attempt’s details; a beat sends at once', async () => {
    const { env, beats } = mock({ phase: 'sending', sentAt: 1 });
    await runIn(env, async () => {
      await beatingWhile(sleep(150));
      beat({ phase: 'rejected' });
    });
    assert.deepEqual(beats[0], { phase: 'sending', sentAt: 1 }, 'the resume point is not erased');
    assert.deepEqual(beats.at(-1), { phase: 'rejected' });
  });

  test('short waits one after another still beat once a slice has passed since the last beat', async () => {
    const { env, beats } = mock();
    await runIn(env, async () => {
      for (let i = 0; i < 12; i++) await beatingWhile(sleep(40)); // each shorter than the 100 ms slice
    });
    assert.ok(beats.length >= 3, `${beats.length} beats over about 480 ms of short waits`);
  });
});

describe('a request longer than the heartbeat timeout, on a real worker', () => {
  let t: TestEnv;
  before(async () => {
    t = await startDevServerEnv();
  });
  after(async () => t?.env.teardown());

  test('keeps its activity alive: it beats while the request is in flight', async () => {
    const { sim } = await startTestSimulator({ jobDurations: FROZEN });
    try {
      const deps = await simDeps(sim, { timeoutMs: 20_000 });
      const client = (await deps.profiles.default!.client.testRuns.submit(SEED_IDS.testSuites.financeProd, {})).id;
      const held = sim.controls.addFault({ kind: 'delay', delay_ms: 6_000, method: 'GET', path: `/jobs/${client}` });
      const options = { startToCloseTimeout: '1 minute', heartbeatTimeout: '2 seconds', retry: { maximumAttempts: 1 } };
      const job = (await runActivity(t.env, deps, 'getJob', { jobId: client }, options)) as { id: string };
      assert.equal(job.id, client, 'answered after 6 s, three heartbeat timeouts');
      assert.equal(faultHits(sim, held), 1, 'one request: not timed out and tried again');
    } finally {
      await sim.close();
    }
  });

  test('outside an activity, a body runs as it is', async () => {
    assert.equal(await heartbeating(async () => 'ran'), 'ran');
  });
});
