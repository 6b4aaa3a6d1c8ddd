/**
 * A workflow that leaves its job alone on cancel (`cancelRemoteJob: false`) ends cancelled even when the cancel and
 * its wait's answer reach it in one workflow task: its worker was away (stalled, restarting) while the job completed.
 * Explorer seed 58783 saw such a workflow complete with the job instead, 2.75 s after its cancel.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CancelledFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities/index.js';
import { waitsQueueActivities, waitsTaskQueue } from '../../src/contract/activity-options.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, workflowsPath } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { uniqueTaskQueue, workflowBundle } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;
// The job stays pending until the test completes it.
const SLOW = { pendingMs: 600_000, claimMs: 600_000, runMs: 6_000_000, cancelMs: 200, interruptMs: 200 };
const THROTTLE = { maxHeartbeatThrottleInterval: 1_000, defaultHeartbeatThrottleInterval: 1_000 };

/** Event ids of the workflow's cancel request, of its wait's completion, and of every workflow task started. */
async function eventsOf(handle: WorkflowHandle) {
  const waits = new Set<string>();
  let cancelAsked = Infinity;
  let waitDone = Infinity;
  const tasks: number[] = [];
  for (const e of (await handle.fetchHistory()).events ?? []) {
    const id = Number(e.eventId);
    if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'dataops.waitForJob')
      waits.add(String(e.eventId));
    if (e.workflowExecutionCancelRequestedEventAttributes) cancelAsked = Math.min(cancelAsked, id);
    const done = e.activityTaskCompletedEventAttributes?.scheduledEventId;
    if (done && waits.has(String(done))) waitDone = Math.min(waitDone, id);
    if (e.workflowTaskStartedEventAttributes) tasks.push(id);
  }
  return { cancelAsked, waitDone, tasks };
}

describe('cancelRemoteJob false: the cancel and the job’s end in one workflow task', () => {
  const s = devServerAndSimulator({ jobDurations: SLOW });

  test('the workflow ends cancelled, and its job is left as it is', async () => {
    const taskQueue = uniqueTaskQueue();
    const activities = createActivities(await simDeps(s.sim));
    const { env } = s.d;
    const common = { connection: env.nativeConnection, namespace: env.namespace ?? 'default', ...THROTTLE };
    const workflows = async () =>
      Worker.create({
        ...common,
        taskQueue,
        workflowBundle: await workflowBundle(workflowsPath),
        activities,
        stickyQueueScheduleToStartTimeout: '1 second',
      });
    const waits = await Worker.create({
      ...common,
      taskQueue: waitsTaskQueue(taskQueue),
      activities: waitsQueueActivities(activities),
    });
    const waiting = waits.run();
    try {
      const before = new Set(s.sim.controls.jobs().map((j) => j.id));
      const first = await workflows();
      const running = first.run();
      const handle = await env.client.workflow.start('dataops.profileTableGroup', {
        taskQueue,
        workflowId: `leave-one-task-${taskQueue}`,
        args: [{ tableGroupId: TG.finance, pollIntervalMs: 100, maxPollIntervalMs: 100, cancelRemoteJob: false }],
      });
      const job = await eventually('its job', () =>
        s.sim.controls.jobs().find((j) => j.job_key === 'run-profile' && !before.has(j.id)),
      );
      await eventually('its wait polling', () =>
        s.sim.controls.requests().some((r) => r.path === `/api/v1/jobs/${job.id}`),
      );
      // The workflow's worker goes away; meanwhile the cancel comes, and the job completes, which its wait answers.
      first.shutdown();
      await running;
      await handle.cancel();
      s.sim.controls.setJobDurations({ pendingMs: 0, claimMs: 0, runMs: 0 }, job.id);
      await eventually('the wait answered', async () => (await eventsOf(handle)).waitDone < Infinity);
      const second = await workflows();
      const err = await second.runUntil(handle.result().catch((e: unknown) => e));
      const { cancelAsked, waitDone, tasks } = await eventsOf(handle);
      assert.ok(
        cancelAsked < waitDone && !tasks.some((t) => t > cancelAsked && t < waitDone),
        'one workflow task heard both',
      );
      assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure, `ended: ${String(err)}`);
      assert.equal((await handle.describe()).status.name, 'CANCELLED');
      assert.equal(s.sim.controls.job(job.id)?.status, 'completed');
      assert.equal(s.sim.controls.counters().cancels[job.id], undefined, 'left alone');
    } finally {
      waits.shutdown();
      await waiting;
    }
  });
});
