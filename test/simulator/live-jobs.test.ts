import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { maybeLive, passOverLive } from '../../src/simulator/live-jobs.js';
import type { JobRecord, SimStateData } from '../../src/simulator/state.js';

/** A state holding only jobs, by id, each `done` or not (status is all the index reads). */
function stateOf(...done: boolean[]): SimStateData {
  const state = { jobs: {}, job_order: [] } as unknown as SimStateData;
  done.forEach((d, i) => add(state, `j${i}`, d));
  return state;
}
function add(state: SimStateData, id: string, done: boolean): void {
  state.jobs[id] = { id, status: done ? 'completed' : 'running' } as JobRecord;
  state.job_order.push(id);
}
const terminal = (job: JobRecord) => job.status === 'completed';
const ids = (jobs: Iterable<JobRecord>) => [...jobs].map((j) => j.id);

describe('simulator live jobs', () => {
  test('a pass visits only jobs not terminal at the last pass, and those created since, in creation order', () => {
    const state = stateOf(true, false, false, true);
    const visited: string[] = [];
    passOverLive(state, terminal, (job) => visited.push(job.id));
    assert.deepEqual(visited, ['j1', 'j2'], 'the first pass scans every job, and steps only the live ones');
    state.jobs.j1!.status = 'completed';
    add(state, 'j4', false);
    visited.length = 0;
    passOverLive(state, terminal, (job) => visited.push(job.id));
    assert.deepEqual(visited, ['j2', 'j4']);
    visited.length = 0;
    passOverLive(state, terminal, (job) => visited.push(job.id));
    assert.deepEqual(visited, ['j2', 'j4'], 'j1 ended: never looked at again');
  });

  test('a job created during a pass is stepped in that pass', () => {
    const state = stateOf(false);
    const visited: string[] = [];
    passOverLive(state, terminal, (job) => {
      visited.push(job.id);
      if (job.id === 'j0') {
        job.status = 'completed';
        add(state, 'generation', false); // as a finishing profiling run appends its generation job
      }
    });
    assert.deepEqual(visited, ['j0', 'generation']);
    assert.deepEqual(ids(maybeLive(state)), ['generation']);
  });

  test('while a pass runs, maybeLive still yields every job that may be working (the slot count)', () => {
    const state = stateOf(false, false);
    const seen: string[][] = [];
    passOverLive(state, terminal, (job) => {
      if (job.id === 'j0') job.status = 'completed';
      seen.push(ids(maybeLive(state)).filter((id) => !terminal(state.jobs[id]!)));
    });
    assert.deepEqual(seen, [['j1'], ['j1']]);
  });

  test('a state whose job list is shorter than the one indexed is scanned anew', () => {
    const state = stateOf(false, false, false);
    passOverLive(state, terminal, () => undefined);
    state.job_order = ['j2'];
    assert.deepEqual(ids(maybeLive(state)), ['j2']);
  });
});
