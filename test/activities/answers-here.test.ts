/**
 * Answers handed over in the worker process (src/exactly-once/answers-here.ts): a requester whose submitter's batch runs
 * in its process hears its answer from the batch, and asks the submitter nothing while that batch has its request;
 * what it hears is what the submitter keeps. Measured at N = 1,000 pipelines on one target, where most questions are
 * refused, and in actions per pipeline (docs/benchmarks.md).
 */
import assert from 'node:assert/strict';
import { setImmediate as tick, setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import {
  answerFrom,
  batchHere,
  FIRST_ASK_MS,
  hearHere,
  takeHere,
  tellHere,
} from '../../src/exactly-once/answers-here.js';
import { queueAt } from '../../src/exactly-once/through-submitter.js';
import { placeQuery, type WriteAnswer, type WriteRequest } from '../../src/exactly-once/messages.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { faultHits } from '../helpers/sim.js';
import { profilingRequesters, SLOW_JOBS } from '../helpers/submitter.js';
import { eventually } from '../helpers/wait.js';

/** A submitter's handle whose every question is refused, as a busy submitter's are at scale; counts them. */
function refusing(handle?: WorkflowHandle): { handle: WorkflowHandle; asked: () => number } {
  let asked = 0;
  const query = (() => {
    asked++;
    return Promise.reject(new Error('consistent query buffer is full, cannot accept new consistent queries'));
  }) as WorkflowHandle['query'];
  return { handle: { ...(handle ?? ({} as WorkflowHandle)), query }, asked: () => asked };
}

// Without the hand-over each wait below never ends: every question is refused (the timeout is a hang's, not a pace).
test('an answer handed over here ends the wait, and the asking stops', { timeout: 60_000 }, async () => {
  const { handle, asked } = refusing();
  let open = 0;
  const within = <T>(p: Promise<T>): Promise<T> => (open++, p.finally(() => open--));
  const waited = answerFrom(handle, 'r-1', async () => false, within, AbortSignal.abort());
  await eventually('asked once', () => asked() >= 1);
  const answer: WriteAnswer = { result: { jobId: 'job-1' } };
  tellHere('r-2', { result: { jobId: 'not mine' } });
  tellHere('r-1', answer);
  assert.deepEqual(await waited, answer);
  await tick();
  assert.equal(open, 0, 'no wait left: the requester asks no more');
});

test('a request a batch here has taken is not asked about, and is asked about once that batch leaves it', async () => {
  const { handle, asked } = refusing();
  takeHere('r-4', true);
  const waited = answerFrom(handle, 'r-4', async () => false, undefined, AbortSignal.abort());
  for (let i = 0; i < 10; i++) await tick();
  assert.equal(asked(), 0, 'taken here: the answer comes from the batch');
  takeHere('r-4', false);
  await eventually('asked once left', () => asked() >= 1);
  tellHere('r-4', { result: { jobId: 'job-4' } });
  assert.deepEqual(await waited, { result: { jobId: 'job-4' } });
});

// At N = 1,000 on one target most requests wait minutes for a batch that runs in their own process: they asked anyway.
test("while its submitter's batches run here, a requester not in them does not ask", async () => {
  const { handle, asked } = refusing({ workflowId: 'submitter-here' } as WorkflowHandle);
  batchHere('submitter-here', true);
  const waited = answerFrom(handle, 'r-6', async () => false);
  await sleep(FIRST_ASK_MS + 500);
  assert.equal(asked(), 0, 'the next batch, likely here, will take it: nothing asked');
  batchHere('submitter-here', false);
  await eventually('asked once no batch of its submitter runs here', () => asked() >= 1);
  // Refused, it would ask again within 1.5 s, then 3 s: a batch that starts here stops it.
  batchHere('submitter-here', true);
  const before = asked();
  await sleep(5_000);
  assert.equal(asked(), before, 'a batch of its submitter started here: asked no more');
  batchHere('submitter-here', false);
  tellHere('r-6', { result: { jobId: 'job-6' } });
  assert.deepEqual(await waited, { result: { jobId: 'job-6' } });
});

// A request dropped at the submitter's continue-as-new is found unknown, and queued again, only by asking.
test('batches of its submitter that never stop here still leave a requester asking, once in a while', async () => {
  const { handle, asked } = refusing({ workflowId: 'submitter-busy' } as WorkflowHandle);
  batchHere('submitter-busy', true);
  try {
    const waited = answerFrom(handle, 'r-7', async () => false);
    // A hang guard, not a pace: it asks once LONGEST_ASK_GAP_MS has passed (or later, on a loaded machine).
    await eventually('asked despite the batches here', () => asked() >= 1, { tries: 3 * 1_200 });
    tellHere('r-7', { result: { jobId: 'job-7' } });
    assert.deepEqual(await waited, { result: { jobId: 'job-7' } });
  } finally {
    batchHere('submitter-busy', false);
  }
});

test('a place the caller has just been told is not asked again (a lost answer is asked about once)', async () => {
  const { handle, asked } = refusing();
  const known = { queued: 40, eachMs: 1_000 }; // far from its turn: the next question is seconds away
  const waited = answerFrom(handle, 'r-5', async () => false, undefined, AbortSignal.abort(), known);
  for (let i = 0; i < 10; i++) await tick();
  assert.equal(asked(), 0, 'its place was known: nothing to ask yet');
  tellHere('r-5', { result: { jobId: 'job-5' } });
  assert.deepEqual(await waited, { result: { jobId: 'job-5' } });
});

test('an answer is handed only to the requests waiting for it when it is told', async () => {
  const early = hearHere('r-3');
  early.stop();
  const late = hearHere('r-3');
  tellHere('r-3', { withdrawn: true });
  assert.deepEqual(await late.answer, { withdrawn: true });
  late.stop();
  const told = await Promise.race([early.answer.then(() => 'told'), tick().then(() => 'not told')]);
  assert.equal(told, 'not told', 'stopped listening before it was told');
});

describe("a batch in the requester's process", () => {
  const s = devServerAndSimulator({ jobDurations: SLOW_JOBS });
  const TG = SEED_IDS.tableGroups.finance;

  test(
    'with every question refused, its requesters hear their answers: those the submitter keeps',
    { timeout: 120_000 },
    async () => {
      await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
        const { client } = s.d.env;
        const submitter = { id: `dataops-submit/${taskQueue}/default/profiling/${TG}`, taskQueue };
        const { requesters, requests } = await profilingRequesters(client, taskQueue, TG, 3, 'here');
        // The first send held until the others queue behind it: they go in one batch, which hands each answer over.
        const held = s.sim.controls.addFault({
          kind: 'delay',
          delay_ms: 2_000,
          method: 'POST',
          path: `/table-groups/${TG}/profiling-runs`,
        });
        const real = client.workflow.getHandle(submitter.id);
        const asking = requests.map(() => refusing(real));
        const ask = async (r: WriteRequest, i: number) => {
          await queueAt(client, submitter, r);
          return answerFrom(asking[i]!.handle, r.id, async () => false);
        };
        const first = ask(requests[0]!, 0);
        await eventually('the first send held', () => faultHits(s.sim, held) === 1);
        const answers = await Promise.all([first, ...requests.slice(1).map((r, i) => ask(r, i + 1))]);
        const jobs = answers.map((a) => ('result' in a ? (a.result as { jobId: string }).jobId : JSON.stringify(a)));
        assert.equal(new Set(jobs).size, 3, `three jobs, one each: ${jobs.join(', ')}`);
        for (const [i, r] of requests.entries())
          assert.deepEqual(await real.query(placeQuery, r.id), answers[i], 'the answer the submitter keeps');
        await Promise.all(requesters.map((w) => w.terminate('done')));
      });
    },
  );
});
