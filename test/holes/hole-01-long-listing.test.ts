/**
 * Hole 1 of the explorer's issue: a lookup for a lost submission's job paged through at most 20 pages of 50 of its
 * kind's listing (the whole project's, not one target's) and answered "none" when it stopped, as if it had read
 * everything. Past 1,000 newer jobs, a committed job was not found and the next attempt sent again. The lookup now
 * reads until it reaches jobs older than its watermark or the listing's end.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Job } from '../../src/api/index.js';
import { jobListing, markOf } from '../../src/exactly-once/reconcile.js';
import { lookOnce } from '../../src/exactly-once/lookup.js';
import { listingTarget } from '../helpers/listing-target.js';

const at = (ms: number) => new Date(Date.UTC(2026, 10, 28, 4, 0, 0) + ms).toISOString();

const job = (id: string, ms: number, tableGroup: string): Job => ({
  id,
  job_key: 'run-profile',
  status: 'pending',
  source: 'api',
  created_at: at(ms),
  claimed_at: null,
  started_at: null,
  completed_at: null,
  error_message: null,
  table_group_id: tableGroup,
});

test('hole 1: a lost job behind 1,100 newer jobs of other targets is found, not taken for none', async () => {
  const older = [job('before', 0, 'tg-ours')];
  const ours = job('ours', 1_000, 'tg-ours');
  const newer = Array.from({ length: 1_100 }, (_, i) => job(`other-${i}`, 2_000 + i, `tg-${i % 7}`));
  const listing = [...newer.reverse(), ours, ...older]; // newest first
  const t = listingTarget(listing);
  const mark = markOf({ ids: ['before'], newest: at(0) });
  const found = await lookOnce(jobListing(t), mark, { soleWriter: true, earlier: new Set() });
  assert.ok('found' in found && found.found.job === ours && !found.byId, `after ${t.pages()} pages`);
});
