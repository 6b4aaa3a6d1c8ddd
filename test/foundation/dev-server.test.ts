import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import type { stampOnce } from '../fixtures/workflows/proof.js';
import { startDevServerEnv, withWorker, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const workflowsPath = fileURLToPath(new URL('../fixtures/workflows/proof.js', import.meta.url));
const activities = { stamp: async (label: string) => `stamped ${label}` };

describe('dev server (Temporal CLI)', () => {
  let t: TestEnv;
  before(async () => {
    t = await startDevServerEnv();
  });
  after(async () => {
    await t?.env.teardown();
  });

  test('a workflow with an activity completes', async (ctx) => {
    ctx.diagnostic(`dev server source: ${t.server.source} ${t.server.path ?? ''}`);
    assert.equal(t.env.supportsTimeSkipping, false);
    const result = await withWorker(t.env, { workflowsPath, activities }, (taskQueue) =>
      t.env.client.workflow.execute<typeof stampOnce>('stampOnce', {
        taskQueue,
        workflowId: `once-${taskQueue}`,
        args: ['hello'],
      }),
    );
    assert.equal(result, 'stamped hello');
  });

  test('a schedule fires on its own and starts a workflow, then is deleted', async () => {
    await withWorker(t.env, { workflowsPath, activities }, async (taskQueue) => {
      const scheduleId = `sched-${taskQueue}`;
      const handle = await t.env.client.schedule.create({
        scheduleId,
        spec: { intervals: [{ every: '1 second' }] },
        policies: { overlap: ScheduleOverlapPolicy.ALLOW_ALL },
        action: { type: 'startWorkflow', workflowType: 'stampOnce', taskQueue, args: ['scheduled'] },
      });
      try {
        // Wait (bounded by count, not by a time threshold) until the schedule has fired once.
        let started: { workflowId: string; firstExecutionRunId: string } | undefined;
        for (let i = 0; i < 120 && !started; i++) {
          // Right after the create, a loaded server can answer "Failed to describe schedule" while the schedule's
          // own workflow starts: asked again, as for a schedule that has not fired yet.
          const description = await handle.describe().catch(() => undefined);
          started = description?.info.recentActions[0]?.action.workflow;
          if (!started) await delay(250);
        }
        assert.ok(started, 'the schedule never fired');
        const run = t.env.client.workflow.getHandle<typeof stampOnce>(started.workflowId, started.firstExecutionRunId);
        assert.equal(await run.result(), 'stamped scheduled');
        const runDescription = await run.describe();
        assert.equal(runDescription.type, 'stampOnce');
        assert.equal(runDescription.status.name, 'COMPLETED');
      } finally {
        await handle.delete();
      }
      await assert.rejects(handle.describe(), ScheduleNotFoundError);
      // The list is read from visibility, which catches up with the delete a moment later.
      await eventually('the deleted schedule to leave the list', async () => {
        const listed: string[] = [];
        for await (const s of t.env.client.schedule.list()) listed.push(s.scheduleId);
        return !listed.includes(scheduleId);
      });
    });
  });
});
