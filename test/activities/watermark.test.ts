/**
 * The watermark a submission takes before it sends (reconcile.ts): the newest job's time and the ids of the jobs not
 * older than it. A lookup never takes a job older than the watermark's newest, so the ids of older jobs, once kept
 * (50 of them with every send, in the submitter's `sent` record and the heartbeat), told it nothing: the lookup after
 * the kept watermark finds what it found after the whole listing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Job } from '../../src/api/index.js';
import { jobListing, markOf, watermarkOf, type Watermark } from '../../src/exactly-once/reconcile.js';
import { lookOnce } from '../../src/exactly-once/lookup.js';
import { listingTarget } from '../helpers/listing-target.js';

const at = (s: number) => new Date(Date.UTC(2026, 10, 28, 4, 0, s)).toISOString();

const job = (id: string, second: number, tableGroup: string): Job => ({
  id,
  job_key: 'run-profile',
  status: 'pending',
  source: 'api',
  created_at: at(second),
  claimed_at: null,
  started_at: null,
  completed_at: null,
  error_message: null,
  table_group_id: tableGroup,
});

const target = listingTarget;

const newestFirst = (jobs: Job[]) => [...jobs].sort((a, b) => b.created_at.localeCompare(a.created_at));

test('a watermark keeps the newest job and the jobs that share its time, not the older ones', () => {
  const listing = [job('a', 30, 'x'), job('b', 30, 'y'), job('c', 29, 'x'), job('d', 10, 'z')];
  assert.deepEqual(watermarkOf(listing), { ids: ['a', 'b'], newest: at(30) });
  assert.deepEqual(watermarkOf([]), { ids: [], newest: null }, 'nothing listed: everything after is new');
});

test('a lookup after the kept watermark finds what it finds after the whole listing', async () => {
  // Listings with ties at the watermark's time, earlier jobs on our own target among them (never to be taken), new
  // jobs of ours and of others (some at that same time), in 200 shapes drawn from a fixed seed.
  let seed = 7;
  const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  for (let round = 0; round < 200; round++) {
    const before = newestFirst(
      Array.from({ length: 1 + next(60) }, (_, i) => job(`old-${i}`, next(20), next(2) ? 'tg-ours' : `tg-${next(3)}`)),
    );
    const full: Watermark = { ids: before.map((j) => j.id), newest: before[0]!.created_at };
    const kept = watermarkOf(before);
    assert.ok(kept.ids.length <= full.ids.length);
    const newest = Date.parse(full.newest!) / 1000 - Date.UTC(2026, 10, 28, 4, 0, 0) / 1000;
    const added = Array.from({ length: next(4) }, (_, i) =>
      job(`new-${i}`, newest + next(3), next(2) ? 'tg-ours' : `tg-${next(3)}`),
    );
    const t = target(newestFirst([...before, ...added]));
    const look = (w: Watermark) => lookOnce(jobListing(t), markOf(w), { soleWriter: true, earlier: new Set() });
    assert.deepEqual(await look(kept), await look(full), `round ${round}`);
  }
});
