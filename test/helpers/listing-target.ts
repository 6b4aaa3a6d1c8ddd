/** A lost submission's lookup (src/exactly-once/reconcile.ts, src/exactly-once/lookup.ts) against a service that lists given jobs, a page at a time. */
import type { Job, ServiceClient } from '../../src/api/index.js';
import type { LookupTarget } from '../../src/exactly-once/reconcile.js';

/** A lookup of profiling runs on table group `tg-ours` whose service lists `jobs` (newest first); `pages` counts reads. */
export function listingTarget(jobs: Job[]): LookupTarget & { pages: () => number } {
  let pages = 0;
  const list = async (_project: string, q: { page?: number; limit?: number }) => {
    pages++;
    const limit = q.limit ?? 20;
    const page = q.page ?? 1;
    return { items: jobs.slice((page - 1) * limit, page * limit), total: jobs.length, page, limit };
  };
  return {
    client: { username: undefined, jobs: { list } } as unknown as ServiceClient,
    projectCode: 'P',
    kind: 'profiling',
    jobKey: 'run-profile',
    targetId: 'tg-ours',
    submissionId: 'sub-1',
    signal: new AbortController().signal,
    pages: () => pages,
  };
}
