/**
 * A target's submitter sends what queued behind a send in one batch (src/exactly-once/send-in-turn.ts): one activity for
 * the batch, each request answered once with its own job; a request refused for good is answered with its failure and
 * the batch goes on; a failure a retry may mend stops the batch there, and the retry sends from it, nothing twice.
 * Dev server and simulator, real sockets.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { requestsQuery, type WriteAnswer } from '../../src/exactly-once/messages.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { withProjectWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { HOLD_AT_MOST_MS, faultHits } from '../helpers/sim.js';
import { SLOW_JOBS, deps, queuingBehindOne } from '../helpers/submitter.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;

describe("a target's submitter, in batches", () => {
  const s = devServerAndSimulator({ jobDurations: SLOW_JOBS });
  const queuedBehindOne = queuingBehindOne(s);

  const jobOf = (a: WriteAnswer | undefined): string => {
    assert.ok(a && 'result' in a, `an answer with a job: ${JSON.stringify(a)}`);
    return (a.result as { jobId: string }).jobId;
  };

  test('the requests that queued behind a send go in one batch, each answered with a job of its own', async () => {
    await withProjectWorker(s.d.env, await deps(s), async (taskQueue) => {
      const { answers, created, batches } = await queuedBehindOne(taskQueue, TG.finance, 5);
      const jobs = answers.map(jobOf);
      assert.equal(new Set(jobs).size, 5, 'five jobs, one per request');
      assert.deepEqual(new Set(jobs), new Set(created.map((j) => j.id)), 'each created once, and only those');
      assert.equal(batches, 2, 'the first alone, then the four that queued behind it in one activity');
    });
  });

  test('more requesters than Temporal admits updates in flight: none waits in one, each gets a job', async () => {
    await withProjectWorker(s.d.env, await deps(s), async (taskQueue) => {
      // Fifteen behind a held send, where Temporal admits 10 updates in flight per workflow: the requests are queued by
      // signal and answered by their batch; no update is held open waiting for an answer.
      const { answers, created, held } = await queuedBehindOne(taskQueue, TG.finance, 16);
      assert.equal(held, 0, 'no update held across workflow tasks');
      const jobs = answers.map(jobOf);
      assert.equal(new Set(jobs).size, 16, 'a job for each request');
      assert.deepEqual(new Set(jobs), new Set(created.map((j) => j.id)), 'each created once, and only those');
    });
  });

  test('a request refused for good is answered with its failure, and the batch goes on', async () => {
    await withProjectWorker(s.d.env, await deps(s), async (taskQueue) => {
      const path = `/table-groups/${TG.sales}/profiling-runs`;
      // Behind the held send, the second of the batch is refused (409): not retried, and not the others' answer.
      const { answers, created, batches } = await queuedBehindOne(taskQueue, TG.sales, 4, () =>
        s.sim.controls.addFault({ kind: 'status', status: 409, method: 'POST', path, skip: 1 }),
      );
      const refused = answers.filter((a) => 'failure' in a);
      assert.equal(refused.length, 1, JSON.stringify(answers));
      assert.equal((refused[0] as { failure: { type: string | null } }).failure.type, 'Conflict');
      const jobs = answers.filter((a) => 'result' in a).map(jobOf);
      assert.equal(new Set(jobs).size, 3);
      assert.deepEqual(new Set(jobs), new Set(created.map((j) => j.id)), 'the three others, each once');
      assert.equal(batches, 2, 'the refusal did not end the batch');
    });
  });

  test('a failure a retry may mend stops the batch there; its retry sends from it, and nothing twice', async () => {
    await withProjectWorker(s.d.env, await deps(s), async (taskQueue) => {
      const path = `/table-groups/${TG.salesDev}/profiling-runs`;
      // Behind the held send, the second of the batch answers 503 (nothing created, but it may have been): the batch
      // attempt ends there, its retry looks for that send's job, finds none, and sends it and the rest.
      const { answers, created } = await queuedBehindOne(taskQueue, TG.salesDev, 4, () =>
        s.sim.controls.addFault({ kind: 'status', status: 503, method: 'POST', path, skip: 1 }),
      );
      const jobs = answers.map(jobOf);
      assert.equal(new Set(jobs).size, 4, 'a job for each request');
      assert.deepEqual(new Set(jobs), new Set(created.map((j) => j.id)), 'each created once, and only those');
    });
  });

  test('an undo that fails for a requester that is gone stops the batch there; its retry finds the job and cancels it', async () => {
    await withProjectWorker(s.d.env, await deps(s), async (taskQueue) => {
      // Behind the held send, the first of the next batch is for a requester that goes while its own send is held (a
      // requester gone before its turn is not sent at all): its job is cancelled, and the first cancel answers 503.
      // The failed undo ends the attempt; the retry finds that job, cancels it, and sends the rest.
      let goneWhileSent: Promise<number> = Promise.resolve(-1);
      const submitter = s.d.env.client.workflow.getHandle(
        `dataops-submit/${taskQueue}/default/profiling/${TG.finance}`,
      );
      const { answers, created } = await queuedBehindOne(taskQueue, TG.finance, 3, async () => {
        const path = `/table-groups/${TG.finance}/profiling-runs`;
        const held = s.sim.controls.addFault({ kind: 'delay', delay_ms: HOLD_AT_MOST_MS, method: 'POST', path });
        s.sim.controls.addFault({ kind: 'status', status: 503, method: 'POST', path: '^.*/jobs/[^/]+/cancel$' });
        goneWhileSent = (async () => {
          await eventually('its send held', () => faultHits(s.sim, held) === 1, { tries: 2_400, delayMs: 50 });
          // The one being sent: the first of the batch (the two queued in whichever order their signals came).
          const [sending] = (await submitter.query(requestsQuery)).sending;
          const workflowId = sending!.split('/')[0]!;
          await s.d.env.client.workflow.getHandle(workflowId).terminate('the requester is gone');
          s.sim.controls.releaseFault(held.id);
          return Number(/^batch-requester-(\d+)-/.exec(workflowId)![1]);
        })();
        goneWhileSent.catch(() => undefined); // awaited below, once the answers are in
      });
      const at = await goneWhileSent;
      const gone = answers[at]!;
      assert.ok('failure' in gone && gone.failure.type === 'RequesterGone', JSON.stringify(gone));
      const seen = JSON.stringify({ answers, created: created.map((j) => j.id) });
      assert.equal(created.length, 3, `each request sent once: ${seen}`);
      const others = answers.filter((_, i) => i !== at).map(jobOf);
      const undone = created.filter((j) => !others.includes(j.id));
      assert.equal(undone.length, 1, `the others, each its own: ${seen}`);
      await eventually(
        'the gone requester’s job cancelled',
        () => s.sim.controls.job(undone[0]!.id)?.status === 'canceled',
      );
      const faults = s.sim.controls.faults().filter((f) => f.path?.endsWith('/cancel$'));
      assert.equal(faults.at(-1)?.hits, 1, 'its first cancel failed');
    });
  });
});
