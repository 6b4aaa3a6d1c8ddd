/**
 * The explorer's oracle catches each violation it names, from records built by hand: an oracle that passes everything
 * would make every seed clean.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JobRecord } from '../../src/simulator/index.js';
import type { Requester } from './draw.js';
import { judge } from './oracle.js';
import type { Ended, SeedRun } from './run-seed.js';

const requester: Requester = {
  name: 'r0-profile',
  kind: 'profile',
  cell: 0,
  startAt: 0,
  waitStrategy: 'heartbeat',
  statusReports: 2,
};

const job = (id: string, requestId: string | null, fields: Partial<JobRecord> = {}): JobRecord =>
  ({
    id,
    job_key: 'run-profile',
    source: 'api',
    status: 'completed',
    created_at: 1_000,
    claimed_at: 1_100,
    started_at: 1_200,
    completed_at: 2_000,
    created_by: 'admin',
    request_id: requestId,
    ...fields,
  }) as JobRecord;

const ended = (fields: Partial<Ended> = {}): Ended => ({
  requester,
  workflowId: 'wf-a',
  outcome: 'ok',
  reported: '{"job":{"jobId":"j1"}}',
  startedAt: 0,
  closedAt: 3_000,
  historyLength: 17,
  retriedTaskEvents: 0,
  ...fields,
});

const run = (jobs: JobRecord[], e: Ended[] = [ended()]): SeedRun => ({
  seed: 1,
  queue: 'q',
  workerLogs: [],
  ended: e,
  jobs,
  orders: [],
  skewMs: 0,
});

test('a clean run has no violation', () => {
  assert.deepEqual(judge(run([job('j1', 'wf-a/r/2')])).violations, []);
});

test('one submission that created two jobs is a violation', () => {
  const v = judge(run([job('j1', 'wf-a/r/2'), job('j2', 'wf-a/r/2')])).violations;
  assert.ok(
    v.some((x) => x.includes('submission wf-a/r/2 created 2')),
    v.join('\n'),
  );
});

test('a workflow that created two jobs of one kind under two activities is a violation', () => {
  const v = judge(run([job('j1', 'wf-a/r/2'), job('j2', 'wf-a/r/5')])).violations;
  assert.ok(
    v.some((x) => x.includes('created 2 run-profile jobs')),
    v.join('\n'),
  );
});

test("reporting another workflow's job, or another caller's, is a violation", () => {
  const theirs = judge(run([job('j1', 'wf-b/r/2')])).violations;
  assert.ok(
    theirs.some((x) => x.includes('reports run-profile j1, created by wf-b/r/2')),
    theirs.join('\n'),
  );
  const scheduler = judge(run([job('j1', null, { source: 'scheduler' })])).violations;
  assert.ok(
    scheduler.some((x) => x.includes('which another caller made (scheduler')),
    scheduler.join('\n'),
  );
});

test('a job of its own left running when it ends is a violation, unless its failure names it', () => {
  const running = job('j1', 'wf-a/r/2', { status: 'running', completed_at: null });
  const unnamed = judge(run([running], [ended({ outcome: 'failed', reported: 'JobWaitTimedOut' })])).violations;
  assert.ok(
    unnamed.some((x) => x.includes('leaving run-profile j1 running, unnamed')),
    unnamed.join('\n'),
  );
  const named = judge(run([running], [ended({ outcome: 'failed', reported: 'left running: j1' })])).violations;
  assert.deepEqual(named, []);
  const late = job('j1', 'wf-a/r/2', { completed_at: 3_000 + 2_001 });
  assert.equal(judge(run([late])).violations.length, 1, 'at rest only after its workflow ended (+2 s)');
});

test('a workflow that outlived its bound, or whose history went past its bound, is a violation', () => {
  assert.equal(
    judge(run([job('j1', 'wf-a/r/2')], [ended({ outcome: 'outlived', reported: '' })])).violations.length,
    1,
  );
  const v = judge(run([job('j1', 'wf-a/r/2')], [ended({ historyLength: 59 })])).violations;
  assert.ok(
    v.some((x) => x.includes('59 history events of its own (59 in all), over its bound of 58')),
    v.join('\n'),
  );
  // Seed 48477: a pipeline of 49 events of its own, and a workflow task that timed out on a busy worker's sticky queue.
  const retried = judge(run([job('j1', 'wf-a/r/2')], [ended({ historyLength: 60, retriedTaskEvents: 2 })])).violations;
  assert.deepEqual(retried, [], "a retried workflow task is not the workflow's own");
});

test('a cancelled workflow: the time its job took to come to rest, by the state it was in', () => {
  const e = ended({ outcome: 'cancelled', reported: '', cancelAskedAt: 1_500 });
  const { cancelLatency, violations } = judge(run([job('j1', 'wf-a/r/2', { status: 'canceled' })], [e]));
  assert.deepEqual(violations, []);
  assert.deepEqual(cancelLatency, [
    { state: 'running', ms: 500 },
    { state: 'closed, its job created', ms: 1_500 },
  ]);
});

test('a job at rest before the cancel was asked has no cancel latency', () => {
  const e = ended({ outcome: 'cancelled', reported: '', cancelAskedAt: 2_500 });
  const { cancelLatency } = judge(run([job('j1', 'wf-a/r/2')], [e]));
  assert.deepEqual(cancelLatency, [{ state: 'closed, its job created', ms: 500 }]);
});

test('a cancelled workflow that created nothing: the time from its cancel to its close', () => {
  const e = ended({ outcome: 'cancelled', reported: '', cancelAskedAt: 1_500, closedAt: 4_200 });
  const { cancelLatency, violations } = judge(run([job('j1', 'wf-b/r/2')], [e]));
  assert.deepEqual(violations, []);
  assert.deepEqual(cancelLatency, [{ state: 'closed, nothing created', ms: 2_700 }]);
});

test('cancelled with cancelRemoteJob false: its job may run on, and completing with it instead is a violation', () => {
  const leave = { ...requester, leaveRunning: true as const };
  const running = job('j1', 'wf-a/r/2', { status: 'running', completed_at: null });
  const cancelled = ended({ requester: leave, outcome: 'cancelled', reported: '', cancelAskedAt: 1_500 });
  const left = judge(run([running], [cancelled]));
  assert.deepEqual(left.violations, []);
  assert.deepEqual(left.cancelLatency, [{ state: 'closed, its job left running', ms: 1_500 }], 'no job latency: left');
  const late = job('j1', 'wf-a/r/2', { completed_at: 4_000 });
  const completed = ended({ requester: leave, cancelAskedAt: 1_500, closedAt: 4_100 });
  const v = judge(run([late], [completed])).violations;
  assert.ok(
    v.some((x) => x.includes('completed with run-profile j1, which ran on after its cancel')),
    v.join('\n'),
  );
  const soon = job('j1', 'wf-a/r/2', { completed_at: 3_000 });
  assert.deepEqual(judge(run([soon], [completed])).violations, [], 'at rest within 2 s of the cancel: a fair race');
  assert.equal(
    judge(run([running], [ended({ outcome: 'cancelled', reported: '', cancelAskedAt: 1_500 })])).violations.length,
    1,
    'with cancelRemoteJob true, a job left running is still a violation',
  );
});

test('a job of its own created after it ended cancelled is a violation, unless it leaves its job alone', () => {
  const e = ended({ outcome: 'cancelled', reported: '', cancelAskedAt: 1_500 });
  const after = job('j1', 'wf-a/r/2', { status: 'canceled', created_at: 3_000 + 1_001, completed_at: 4_100 });
  const v = judge(run([after], [e])).violations;
  assert.ok(
    v.some((x) => x.includes('ended cancelled, and run-profile j1 was created after, at +1001 ms')),
    v.join('\n'),
  );
  const before = job('j1', 'wf-a/r/2', { status: 'canceled', created_at: 2_900, completed_at: 3_100 });
  assert.deepEqual(judge(run([before], [e])).violations, []);
  const leaving = ended({ ...e, requester: { ...requester, leaveRunning: true } });
  assert.deepEqual(judge(run([after], [leaving])).violations, [], 'a send in flight may answer after its close');
});
