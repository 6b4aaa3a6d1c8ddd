/**
 * Jobs another caller made on a target, for the explorer and tests of lookups: the kitchen's scheduler (`source`), or
 * another API client (`created_by`, the same user as ours or not), and long listings of jobs already over.
 */
import { z } from 'zod';
import type { SimContext } from './context.js';
import { notFound } from './errors.js';
import { submitJob } from './jobs.js';
import type { JobRecord } from './state.js';

export const ForeignJobs = z
  .object({
    job_key: z.enum(['run-profile', 'run-tests', 'run-test-generation']),
    /** The table group (profiling) or test suite (test runs, generation). */
    target_id: z.string(),
    source: z.string().default('api'),
    created_by: z.string().nullable().default(null),
    count: z.number().int().positive().max(10_000).default(1),
    /** Over at once (canceled): a long listing of history. */
    completed: z.boolean().default(false),
  })
  .strict();
export type ForeignJobs = z.input<typeof ForeignJobs>;

/** Makes the jobs of `spec` (addForeignJobs). */
export function foreignJobs(ctx: SimContext, input: ForeignJobs): JobRecord[] {
  const spec = ForeignJobs.parse(input);
  const suite = ctx.seed.test_suites.find((t) => t.id === spec.target_id);
  const group = ctx.groups.get(suite?.table_group_id ?? spec.target_id);
  if (!group) throw notFound(`table group or test suite ${spec.target_id}`);
  const made: JobRecord[] = [];
  for (let i = 0; i < spec.count; i++) {
    const job = submitJob(ctx, {
      job_key: spec.job_key,
      source: spec.source,
      project_code: group.project_code,
      table_group_id: group.id,
      test_suite_id: suite?.id ?? null,
      created_by: spec.created_by,
    });
    if (spec.completed) Object.assign(job, { status: 'canceled', completed_at: job.created_at, run_remaining_ms: 0 });
    made.push(job);
  }
  return made;
}
