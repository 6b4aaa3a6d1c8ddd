/**
 * A worker dies in the middle of a batch of sends (src/exactly-once/send-in-turn.ts): the batch's first request was
 * answered, its second was taken by the service (which commits it after the worker is gone), its third was not sent.
 * The batch's retry, on another worker, asks the submitter what is left: the first keeps its answer, the second is
 * found from its recorded watermark, the third is sent. One job per workflow, none twice, none taken for another's.
 * Worker processes, dev server and simulator, real sockets.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JobRun } from '../../src/contract/index.js';
import { requestsQuery } from '../../src/exactly-once/messages.js';
import { ending } from '../helpers/ending.js';
import { cellIds } from '../helpers/matrix.js';
import { worldOfCells } from '../helpers/matrix-world.js';
import { HELD_CLIENT_TIMEOUT_MS, HOLD_AT_MOST_MS, submitterAt } from '../helpers/sim.js';
import { eventually } from '../helpers/wait.js';

const LONG = { timeout: 10 * 60_000 };

describe('a worker that dies in the middle of a batch of sends', () => {
  const world = worldOfCells(1);

  test('its retry keeps what was answered, finds what was sent, sends the rest: one job each', LONG, async () => {
    const w = world();
    const ids = cellIds(0);
    const queue = 'death-batch';
    const path = `/table-groups/${ids.tableGroup}/profiling-runs`;
    const submitterId = submitterAt(w.controls.url, queue, 'profiling', ids.tableGroup);
    // Held requests are still in flight when it dies: its timeout is longer than the holds.
    const slow = { DATAOPS_TIMEOUT_MS: String(HELD_CLIENT_TIMEOUT_MS) };
    const victim = w.startWorker(queue, slow);
    const start = (n: number) =>
      w.client.workflow.start('dataops.profileTableGroup', {
        taskQueue: queue,
        workflowId: `batch-death-${n}-${Date.now()}`,
        args: [
          { tableGroupId: ids.tableGroup, pollIntervalMs: 200, maxPollIntervalMs: 400, heartbeatTimeoutMs: 20_000 },
        ],
      });
    // The first send is held until the next three have queued behind it, so that they go in one batch.
    const first = await w.controls.addFault({ kind: 'delay', delay_ms: HOLD_AT_MOST_MS, method: 'POST', path });
    const handles = [await start(0)];
    await eventually('the first send held', async () => (await w.controls.hits(first.id)) === 1, {
      tries: 600,
      delayMs: 50,
    });
    handles.push(...(await Promise.all([1, 2, 3].map(start))));
    await eventually(
      'three queued behind it',
      async () => (await w.client.workflow.getHandle(submitterId).query(requestsQuery)).queued.length === 3,
      { tries: 600, delayMs: 50 },
    );
    // In the batch of three, the first goes through and the second is held: the worker dies while the service has it.
    const second = await w.controls.addFault({ kind: 'delay', delay_ms: 4_000, method: 'POST', path, skip: 1 });
    await w.controls.releaseFault(first.id);
    await eventually("the batch's second send held", async () => (await w.controls.hits(second.id)) === 1, {
      tries: 1_200,
      delayMs: 50,
    });
    await victim.stop('SIGKILL');
    w.startWorker(queue, slow);

    const ends = await Promise.all(handles.map((h) => ending<{ job: JobRun }>(h)));
    for (const end of ends) assert.equal(end.outcome, 'ok', end.failure);
    const reported = ends.map((e) => e.result!.job);
    const created = (await w.controls.jobs()).filter(
      (j) => j.job_key === 'run-profile' && j.table_group_id === ids.tableGroup,
    );
    assert.equal(created.length, 4, `one profiling run per workflow, none twice: ${created.length}`);
    assert.deepEqual(
      new Set(reported.map((j) => j.jobId)),
      new Set(created.map((j) => j.id)),
      'each workflow reports a run of its own',
    );
    assert.equal(
      reported.filter((j) => j.reconciled).length,
      1,
      'only the send whose answer died with the worker was looked for',
    );
    const batches = ((await w.client.workflow.getHandle(submitterId).fetchHistory()).events ?? []).flatMap((e) => {
      const a = e.activityTaskScheduledEventAttributes;
      if (a?.activityType?.name !== 'dataops.sendInTurn') return [];
      const data = a.input?.payloads?.[0]?.data;
      return data ? [(JSON.parse(Buffer.from(data).toString()) as { requests: unknown[] }).requests.length] : [];
    });
    assert.deepEqual(batches, [1, 3], 'the first alone, then the three in one batch (retried, not rescheduled)');
  });
});
