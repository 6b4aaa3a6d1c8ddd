/**
 * A worker told to stop (SIGTERM) lets the activity in flight finish within DATAOPS_SHUTDOWN_GRACE_MS: a submission
 * held by the service, sent by its target's submitter, completes on the stopping worker, instead of being aborted
 * mid-request for another worker to reconcile. With no grace, the same submission is cut off.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SEED_IDS } from '../../src/simulator/index.js';
import {
  simControls,
  startSimulatorProcess,
  startWorkerProcess,
  type Proc,
  simulatorService,
} from '../helpers/processes.js';
import { HOLD_AT_MOST_MS, submitterAt } from '../helpers/sim.js';
import { startDevServerEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

describe('graceful shutdown of a worker process', () => {
  let t: TestEnv;
  let sim: { proc: Proc; url: string };
  const procs: Proc[] = [];
  const control = simControls(() => sim.url);

  before(async () => {
    t = await startDevServerEnv();
    sim = await startSimulatorProcess();
  });
  after(async () => {
    await Promise.all(procs.map((p) => p.stop('SIGKILL')));
    await sim?.proc.stop();
    await t?.env.teardown();
  });

  // Each case submits to its own suite, through its submitter (on the case's own task queue).
  let submitterId = '';
  const workflow = () => t.env.client.workflow.getHandle(submitterId);

  /** Whether the submitter's send activity has been picked up by a worker. */
  async function submitStarted(): Promise<boolean> {
    const described = await workflow()
      .describe()
      .catch(() => undefined);
    return (described?.raw.pendingActivities ?? []).some(
      (a) => String(a.state) === '2' || String(a.state) === 'PENDING_ACTIVITY_STATE_STARTED',
    );
  }

  /** The send activity's outcome events in the submitter's history. */
  async function submitEvents(): Promise<string[]> {
    const history = await workflow()
      .fetchHistory()
      .catch(() => ({ events: [] }));
    return (history.events ?? []).flatMap((e) =>
      e.activityTaskCompletedEventAttributes
        ? ['completed']
        : e.activityTaskFailedEventAttributes
          ? ['failed']
          : e.activityTaskStartedEventAttributes
            ? ['started']
            : [],
    );
  }

  async function stopDuringHeldSubmit(graceMs: number, tableGroupId: string) {
    const taskQueue = uniqueTaskQueue(`grace-${graceMs}`);
    const worker = startWorkerProcess({
      TEMPORAL_ADDRESS: t.env.connection.options.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      ...simulatorService(sim.url),
      DATAOPS_SHUTDOWN_GRACE_MS: String(graceMs),
    });
    procs.push(worker);
    await eventually('the worker to start', () => /worker|Worker state changed/i.test(worker.output()));
    // The service holds the submission once its body has arrived: until the worker is stopping, with a grace time
    // (then it commits it), or until the worker has exited, without one.
    const hold = (await control('POST', '/_sim/faults', {
      kind: 'delay',
      delay_ms: HOLD_AT_MOST_MS,
      method: 'POST',
      path: '/profiling-runs',
    })) as { id: string };
    submitterId = submitterAt(sim.url, taskQueue, 'profiling', tableGroupId);
    const handle = await t.env.client.workflow.start('dataops.profileTableGroup', {
      taskQueue,
      workflowId: `grace-${taskQueue}`,
      args: [{ tableGroupId, pollIntervalMs: 200 }],
    });
    await eventually('the submission to be in flight', submitStarted);
    await eventually('the submission held by the service', async () => {
      const faults = (await control('GET', '/_sim/faults')) as { id: string; hits: number }[];
      return faults.find((f) => f.id === hold.id)?.hits === 1;
    });
    const stopping = worker.stop('SIGTERM');
    if (graceMs > 0) {
      await eventually('the worker stopping', () => /STOPPING/.test(worker.output()));
      await control('POST', `/_sim/faults/${hold.id}/release`);
    }
    const exit = await stopping;
    const events = await submitEvents();
    await handle.terminate('test over');
    await control('DELETE', '/_sim/faults');
    return { exit, events, output: worker.output() };
  }

  test('with a grace time, the held submission completes on the stopping worker, which then exits cleanly', async () => {
    const { exit, events, output } = await stopDuringHeldSubmit(20_000, SEED_IDS.tableGroups.finance);
    assert.equal(exit, 0, output.slice(-2_000));
    assert.deepEqual(events, ['started', 'completed'], 'the submission finished on the worker told to stop');
  });

  test('without one (0), the same submission is cut off', async () => {
    const { events } = await stopDuringHeldSubmit(0, SEED_IDS.tableGroups.sales);
    assert.ok(!events.includes('completed'), `no completion: ${events.join(', ')}`);
  });
});
