/**
 * A failing seed's evidence holds what its run saw: every history of its task queue (asked by that queue), the
 * simulator's records, the verdict and each worker's output.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Client } from '@temporalio/client';
import { keepEvidence } from './evidence.js';
import type { SeedRun } from './run-seed.js';

test('keepEvidence writes the histories of the seed’s task queue, its records and its worker logs', async () => {
  const queries: string[] = [];
  const client = {
    workflow: {
      async *list({ query }: { query: string }) {
        queries.push(query);
        yield { workflowId: 'explore-7-r0-profile', runId: 'run-a' };
        yield { workflowId: 'dataops.submitter/q/default', runId: 'run-b' };
      },
      getHandle: (id: string, runId: string) => ({ fetchHistory: async () => ({ events: [{ id, runId }] }) }),
    },
  } as unknown as Client;
  const run: SeedRun = {
    seed: 7,
    queue: 'explore-7-1',
    workerLogs: ['first worker', 'restarted worker'],
    ended: [],
    jobs: [],
    orders: [],
    skewMs: 0,
  };
  const dir = mkdtempSync(join(tmpdir(), 'evidence-'));
  try {
    const out = await keepEvidence(client, run, { violations: ['v'], cancelLatency: [] }, dir);
    assert.equal(out, join(dir, 'seed-7'));
    assert.deepEqual(queries, ["TaskQueue = 'explore-7-1'"]);
    assert.deepEqual(readdirSync(join(out, 'histories')).sort(), [
      'dataops.submitter_q_default-run-b.json',
      'explore-7-r0-profile-run-a.json',
    ]);
    assert.equal(readFileSync(join(out, 'worker-1.log'), 'utf8'), 'restarted worker');
    assert.deepEqual(JSON.parse(readFileSync(join(out, 'verdict.json'), 'utf8')).violations, ['v']);
    assert.ok(readdirSync(out).includes('jobs.json'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
