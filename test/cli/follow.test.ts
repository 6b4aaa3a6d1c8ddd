/**
 * `--follow`'s live line: a wait that polls its job has submitted it, so the line says the workflow waits for it,
 * even before the workflow's own stage says so (a short job can end before the report that names it).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { describeLive, follow, liveProgress } from '../../src/cli/follow.js';

type Job = { role: string; jobId: string; status: string | null };

/**
 * A handle whose query answers `stage` (with the jobs so far and the last status of any) and whose description has a
 * pending wait heartbeating `beat`, if any.
 */
function handleAt(
  stage: string,
  beat?: { polls: number; lastStatus: string | null },
  jobs: Job[] = [],
  lastStatus: string | null = null,
): WorkflowHandle {
  // What the live line reads of the progress query.
  const progress = { stage, startedAt: new Date().toISOString(), lastStatus, polls: 0, interrupts: 0, jobs };
  const pendingActivities = beat ? [{ heartbeatDetails: { payloads: [defaultPayloadConverter.toPayload(beat)] } }] : [];
  return {
    query: async () => progress,
    describe: async () => ({ status: { name: 'RUNNING' }, historyLength: 3, raw: { pendingActivities } }),
  } as unknown as WorkflowHandle;
}

test('a wait polling its job reads as waiting for it, not as still submitting', async () => {
  const polled = await liveProgress(handleAt('submitting profiling', { polls: 3, lastStatus: 'completed' }));
  assert.equal(polled.live.stage, 'waiting for profiling');
  assert.match(describeLive(polled.live), /\] waiting for profiling · job completed · polls 3$/);
  // Before any poll, the stage is the workflow's.
  const sending = await liveProgress(handleAt('submitting profiling'));
  assert.equal(sending.live.stage, 'submitting profiling');
  assert.doesNotMatch(describeLive(sending.live), /· job /);
  // Any other stage is left as it is.
  const gates = await liveProgress(handleAt('applying quality gates', { polls: 1, lastStatus: 'completed' }));
  assert.equal(gates.live.stage, 'applying quality gates');
});

test("between two jobs the line does not show the ended job's status as the next one's", async () => {
  const ended: Job[] = [
    { role: 'profiling', jobId: 'p-1', status: 'completed' },
    { role: 'generation', jobId: 'g-1', status: 'completed' },
  ];
  // The test run's wait has started and not polled yet: the query's last status is still the generation job's.
  const before = await liveProgress(
    handleAt('submitting test_run', { polls: 0, lastStatus: null }, ended, 'completed'),
  );
  // Not polled yet, it may still be sending: it reads as submitting (it read "waiting for test_run" while the
  // submitter retried a login through an outage, and no job existed).
  assert.equal(before.live.stage, 'submitting test_run');
  assert.equal(before.live.status, null);
  assert.doesNotMatch(describeLive(before.live), /· job /);
  // Once the test run's job is known, its own status shows.
  const known = [...ended, { role: 'test_run', jobId: 't-1', status: 'pending' }];
  const waiting = await liveProgress(handleAt('waiting for test_run', undefined, known, 'pending'));
  assert.match(describeLive(waiting.live), /\] waiting for test_run · job pending · polls 0$/);
  // A stage about no one role keeps the last status of any job.
  const gates = await liveProgress(handleAt('applying quality gates', undefined, known, 'completed'));
  assert.equal(gates.live.status, 'completed');
});

test("--follow prints each job's page in the service's UI once, as soon as the job is known", async () => {
  const url = 'http://ui:8501/test-runs:results?run_id=j-1';
  let calls = 0;
  const handle = {
    client: { withDeadline: <T>(_: number, fn: () => Promise<T>) => fn() },
    query: async () => ({
      stage: 'waiting for test_run',
      startedAt: new Date().toISOString(),
      lastStatus: 'running',
      polls: 0,
      interrupts: 0,
      jobs: [
        { role: 'test_run', jobId: 'j-1', url },
        { role: 'profiling', jobId: 'p-1' },
      ],
    }),
    describe: async () => ({
      status: { name: ++calls >= 3 ? 'COMPLETED' : 'RUNNING' },
      historyLength: 3 + calls,
      raw: {},
    }),
  } as unknown as WorkflowHandle;
  const written: string[] = [];
  const out = { isTTY: false, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream;
  await follow(handle, out, 1);
  assert.deepEqual(
    written.filter((w) => w.includes('http')),
    [`test_run job j-1: ${url}\n`],
    'once, for the job with a page',
  );
});
