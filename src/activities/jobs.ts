/**
 * The job activities around submission and waiting: idempotent cancel, the two summaries, and the lookup of the
 * test-generation job that follows a profiling run.
 */
import { Context, log } from '@temporalio/activity';
import { z } from 'zod';
import { Conflict, NotFound, isTerminalJobStatus } from '../api/index.js';
import type { CancelOutcome, JobSnapshot, ProfilingSummary, TestRunSummary } from '../contract/types.js';
import { scorePercent } from '../vocabulary.js';
import type { ActivityContext } from './context.js';
import { parseInput, translated } from './errors.js';
import { Id, JobInput, Profile, snapshot } from './job-inputs.js';

const SummaryInput = JobInput.extend({ awaitScoreMs: z.number().int().min(0).max(600_000).default(0) });
type SummaryInput = z.input<typeof SummaryInput>;

export function jobActivities(ctx: ActivityContext) {
  return {
    /** Requests cancellation; idempotent. A job that is already terminal (409) is returned as it is. */
    cancelJob: async (raw: JobInput): Promise<CancelOutcome> => {
      const input = parseInput(JobInput, raw, 'cancelJob');
      return translated(async () => {
        const { client } = ctx.profile(input.profile);
        const signal = Context.current().cancellationSignal;
        try {
          const job = await client.jobs.cancel(input.jobId, { signal });
          log.info('job cancel requested', { jobId: job.id, status: job.status });
          return { job: snapshot(job), alreadyTerminal: false };
        } catch (err) {
          if (!(err instanceof Conflict)) throw err;
          const job = await client.jobs.get(input.jobId, { signal });
          if (!isTerminalJobStatus(job.status)) throw err;
          log.info('job already terminal; nothing to cancel', { jobId: job.id, status: job.status });
          return { job: snapshot(job), alreadyTerminal: true };
        }
      });
    },

    /**
     * The test-run summary. TestGen rolls the score up in a separate job after the run completes, so a completed run
     * may show no score for a moment: with `awaitScoreMs`, it is fetched again (every 2 s) until the score is there
     * or that time has passed, and only then reported without one.
     */
    getTestRunSummary: async (raw: SummaryInput): Promise<TestRunSummary> => {
      const input = parseInput(SummaryInput, raw, 'getTestRunSummary');
      return translated(async () => {
        const { client, scoreScale = 'fraction' } = ctx.profile(input.profile);
        const signal = Context.current().cancellationSignal;
        const until = Date.now() + input.awaitScoreMs;
        let s = await client.testRuns.summary(input.jobId, { signal });
        while (s.status === 'completed' && (s.result?.score ?? null) === null && Date.now() < until) {
          await Context.current().sleep(Math.min(2_000, Math.max(until - Date.now(), 1)));
          s = await client.testRuns.summary(input.jobId, { signal });
        }
        const c = s.result?.result_counts;
        return {
          jobId: s.id,
          status: s.status,
          testSuiteId: s.test_suite_id,
          tableGroupId: s.table_group_id,
          startedAt: s.started_at,
          completedAt: s.completed_at,
          scorePercent: scorePercent(s.result?.score, scoreScale),
          resultCounts: c
            ? {
                passed: c.passed,
                failed: c.failed,
                warning: c.warning,
                error: c.error,
                log: c.log,
                dismissed: c.dismissed,
              }
            : null,
        };
      });
    },

    getProfilingSummary: async (raw: JobInput): Promise<ProfilingSummary> => {
      const input = parseInput(JobInput, raw, 'getProfilingSummary');
      return translated(async () => {
        const { client, scoreScale = 'fraction' } = ctx.profile(input.profile);
        const s = await client.profilingRuns.summary(input.jobId, { signal: Context.current().cancellationSignal });
        const r = s.result;
        const h = r?.issue_counts.hygiene_issues;
        const pii = r?.issue_counts.potential_pii;
        return {
          jobId: s.id,
          status: s.status,
          tableGroupId: s.table_group_id,
          startedAt: s.started_at,
          completedAt: s.completed_at,
          scorePercent: scorePercent(r?.score, scoreScale),
          tableCount: r?.table_ct ?? null,
          columnCount: r?.column_ct ?? null,
          recordCount: r?.record_ct ?? null,
          hygieneIssues: h ? { definite: h.definite, likely: h.likely, possible: h.possible } : null,
          potentialPii: pii ? { high: pii.high, moderate: pii.moderate } : null,
          dismissedIssues: r?.issue_counts.dismissed ?? null,
        };
      });
    },

    /**
     * Whether a test-generation job can follow this table group's profiling run, as far as the deployment says:
     * false when the group has no default test suite, or (TestGen 5.134) when this was not its first completed
     * profiling run (cancelled and failed ones do not count there);
     * null when the deployment does not describe table groups (then the pipeline looks, as before).
     */
    generationExpected: async (raw: {
      profile?: string;
      tableGroupId: string;
    }): Promise<{ expected: boolean | null; reason: string }> => {
      const input = parseInput(z.object({ profile: Profile, tableGroupId: Id }), raw, 'generationExpected');
      return translated(async () => {
        const { client } = ctx.profile(input.profile);
        const signal = Context.current().cancellationSignal;
        const unless404 = async <T>(call: () => Promise<T>): Promise<T | undefined> =>
          call().catch((err: unknown) => {
            if (err instanceof NotFound) return undefined;
            throw err;
          });
        const group = await unless404(() => client.tableGroups.get(input.tableGroupId, { signal }));
        if (!group) return { expected: null, reason: 'the deployment does not describe table groups' };
        if ('default_test_suite_id' in group && group.default_test_suite_id === null)
          return {
            expected: false,
            reason: 'the table group has no default test suite, so profiling generates no tests',
          };
        const runs = await unless404(() => client.tableGroups.completedProfilingRuns(input.tableGroupId, { signal }));
        if (runs !== undefined && runs > 1)
          return {
            expected: false,
            reason: 'test generation follows only the first completed profiling run of a table group',
          };
        return { expected: null, reason: 'a follow-up may come' };
      });
    },

    /**
     * Finds the test-generation job that follows a profiling run of an auto-generating table group: the newest
     * `run-test-generation` job of the table group created at or after the profiling run completed. Null if none.
     */
    findGenerationJob: async (raw: {
      profile?: string;
      tableGroupId: string;
      projectCode?: string;
      after: string;
    }): Promise<JobSnapshot | null> => {
      const input = parseInput(
        z.object({
          profile: Profile,
          tableGroupId: Id,
          projectCode: z.string().min(1).optional(),
          after: z.string().min(1),
        }),
        raw,
        'findGenerationJob',
      );
      return translated(async () => {
        const { client, projectCode: profileProject } = ctx.profile(input.profile);
        const projectCode = input.projectCode ?? profileProject;
        if (!projectCode) return null;
        const after = Date.parse(input.after) - 1_000;
        const list = await client.jobs.list(
          projectCode,
          { job_key: 'run-test-generation', limit: 100 },
          { signal: Context.current().cancellationSignal },
        );
        if (list.items.some((j) => 'table_group_id' in j)) {
          const found = list.items.find(
            (j) => j.table_group_id === input.tableGroupId && Date.parse(j.created_at) >= after,
          );
          return found ? snapshot(found) : null;
        }
        // A listing without targets (TestGen 5.134): the follow-up is the one job the service queued itself (not
        // through the API) as the profiling run finished. Several such jobs cannot be told apart: none is taken.
        const finished = Date.parse(input.after);
        const near = list.items.filter(
          (j) =>
            typeof j.source === 'string' &&
            j.source !== 'api' &&
            Math.abs(Date.parse(j.created_at) - finished) <= 30_000,
        );
        if (near.length > 1) log.warn('several follow-up generation jobs; none taken', { ids: near.map((j) => j.id) });
        return near.length === 1 ? snapshot(near[0]!) : null;
      });
    },
  };
}
