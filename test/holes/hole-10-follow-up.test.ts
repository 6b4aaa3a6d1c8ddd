/**
 * Hole 10 of the explorer's issue: the lookup of profiling's follow-up test generation, on a listing that names
 * targets, took any generation job of the table group created after the run finished, including one that another
 * workflow or a person submitted through the API; the pipeline then followed it, and cancelled it on a cancel. The
 * follow-up is the one job the service queued itself; an API caller's is never taken, and several are not told apart.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Job, ServiceClient } from '../../src/api/index.js';
import { followUpGeneration } from '../../src/activities/summaries.js';

const FINISHED = '2026-11-28T04:00:00.000Z';
const after = (s: number) => new Date(Date.parse(FINISHED) + s * 1000).toISOString();

const generation = (id: string, source: string, second: number): Job => ({
  id,
  job_key: 'run-test-generation',
  status: 'running',
  source,
  created_at: after(second),
  claimed_at: null,
  started_at: null,
  completed_at: null,
  error_message: null,
  table_group_id: 'tg-1',
});

const clientListing = (items: Job[]) =>
  ({ jobs: { list: async () => ({ items, total: items.length, page: 1, limit: 100 }) } }) as unknown as ServiceClient;

const lookUp = (items: Job[]) =>
  followUpGeneration(
    clientListing(items),
    { tableGroupId: 'tg-1', projectCode: 'P', after: FINISHED },
    { signal: new AbortController().signal },
  );

test("hole 10: an API caller's generation job of the table group is not taken for profiling's follow-up", async () => {
  assert.equal(await lookUp([generation('someone-elses', 'api', 1)]), null);
  const found = await lookUp([generation('someone-elses', 'api', 2), generation('follow-up', 'system', 0)]);
  assert.equal(found?.id, 'follow-up', "the service's own follow-up still is");
});
