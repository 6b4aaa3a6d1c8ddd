/**
 * Exactly-once job submission: a profiling run, a test run or a test-generation job is submitted once, and a retry
 * after an answer that may have been lost is reconciled through the job listing before anything is submitted again.
 */
import { activityInfo, Context, log } from '@temporalio/activity';
import { z } from 'zod';
import {
  ConnectionFailed,
  RequestAborted,
  RequestTimedOut,
  ServerError,
  ServiceError,
  UnexpectedResponse,
  type Job,
  type ServiceClient,
  type TestRunLink,
} from '../api/index.js';
import type { JobSubmitted } from '../contract/types.js';
import type { ActivityContext } from './context.js';
import { SubmissionOutcomeUnknown, parseInput, translated } from './errors.js';
import { SubmitInput } from './job-inputs.js';

/** Failures that mean "the request may have been processed, the answer was lost". */
function isAmbiguous(err: unknown): boolean {
  // Getting a token failed: the submission itself was never sent, so it cannot have created a job.
  if (err instanceof ServiceError && err.auth) return false;
  if (err instanceof RequestTimedOut || err instanceof ServerError || err instanceof UnexpectedResponse) return true;
  if (err instanceof RequestAborted) return true;
  if (err instanceof ConnectionFailed) return !['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(err.code ?? '');
  return false;
}

/** Heartbeat details of a submission: where the previous attempt got to. */
const SubmitPhase = z.object({ phase: z.enum(['sending', 'rejected']) });

type JobKind = 'profiling' | 'tests' | 'generation';

/** The workflow behind this activity, for the job to point back to: ids always, a Web UI link when configured. */
function linkToWorkflow(uiUrl: string | undefined): TestRunLink {
  const info = activityInfo();
  const execution = info.workflowExecution;
  if (!execution) return {}; // an activity run outside a workflow
  const { workflowId, runId } = execution;
  const namespace = info.workflowNamespace ?? info.namespace;
  return {
    metadata: { workflow_id: workflowId, run_id: runId, workflow_type: info.workflowType ?? null, namespace },
    ...(uiUrl
      ? {
          externalUrl: `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}/history`,
        }
      : {}),
  };
}

/** What each kind of submission sends, and how its job shows in the listing. */
const KINDS: Record<
  JobKind,
  {
    activity: string;
    jobKey: string;
    targetField: 'table_group_id' | 'test_suite_id';
    send: (
      client: ServiceClient,
      targetId: string,
      signal: AbortSignal,
      link: TestRunLink,
    ) => Promise<{ id: string; created_at?: string }>;
  }
> = {
  profiling: {
    activity: 'submitProfilingRun',
    jobKey: 'run-profile',
    targetField: 'table_group_id',
    send: (client, id, signal) => client.profilingRuns.submit(id, { signal }),
  },
  tests: {
    activity: 'submitTestRun',
    jobKey: 'run-tests',
    targetField: 'test_suite_id',
    send: (client, id, signal, link) => client.testRuns.submit(id, { signal, ...link }),
  },
  generation: {
    activity: 'submitTestGeneration',
    jobKey: 'run-test-generation',
    targetField: 'test_suite_id',
    send: (client, id, signal) => client.testGeneration.submit(id, { signal }),
  },
};

export function submissionActivities(ctx: ActivityContext) {
  /**
   * Finds a job created for `targetId` since this activity was first scheduled: the job a lost response was about.
   * Undefined when there is none; SubmissionOutcomeUnknown when it cannot be told.
   */
  async function reconcile(
    client: ServiceClient,
    projectCode: string,
    jobKey: string,
    targetField: 'table_group_id' | 'test_suite_id',
    targetId: string,
  ): Promise<Job | undefined> {
    const since = activityInfo().scheduledTimestampMs - ctx.clockSkewMs;
    const signal = Context.current().cancellationSignal;
    const candidates: Job[] = [];
    let targetFieldSeen = false;
    for (let page = 1; page <= 20; page++) {
      const list = await client.jobs.list(projectCode, { job_key: jobKey, page, limit: 100 }, { signal });
      let older = false;
      for (const job of list.items) {
        if (Date.parse(job.created_at) < since) {
          older = true;
          continue;
        }
        if (targetField in job) targetFieldSeen = true;
        if (job[targetField] !== targetId) continue;
        if (typeof job.source === 'string' && job.source !== 'api') continue;
        if (typeof job.created_by === 'string' && client.username && job.created_by !== client.username) continue;
        candidates.push(job);
      }
      if (older || list.items.length < list.limit || page * list.limit >= list.total) break;
    }
    if (candidates.length === 1) return candidates[0];
    if (candidates.length > 1)
      throw new SubmissionOutcomeUnknown(
        `a submission for ${targetId} may have been lost, and ${candidates.length} jobs match it (${candidates.map((j) => j.id).join(', ')}); not submitting again`,
      );
    if (!targetFieldSeen && candidates.length === 0) {
      // Either no job since `since`, or a deployment whose listing does not say which target a job belongs to.
      const anyRecent = await client.jobs.list(projectCode, { job_key: jobKey, limit: 1 }, { signal });
      const newest = anyRecent.items[0];
      if (newest && Date.parse(newest.created_at) >= since && !(targetField in newest))
        throw new SubmissionOutcomeUnknown(
          `the job listing does not show ${targetField}, so a lost submission for ${targetId} cannot be matched; not submitting again`,
        );
    }
    return undefined;
  }

  async function submit(kind: JobKind, raw: SubmitInput): Promise<JobSubmitted> {
    const { activity, jobKey, targetField } = KINDS[kind];
    const input = parseInput(SubmitInput, raw, activity);
    return translated(async () => {
      const { client, projectCode: profileProject } = ctx.profile(input.profile);
      const projectCode = input.projectCode ?? profileProject;
      const info = activityInfo();
      const signal = Context.current().cancellationSignal;

      // An earlier attempt that was certainly refused (a 4xx, or no token at all) created nothing: submit at once.
      // Any other earlier attempt, or one whose heartbeat details were lost, may have: look before submitting.
      const refusedBefore = SubmitPhase.safeParse(info.heartbeatDetails).data?.phase === 'rejected';
      if (info.attempt > 1 && !refusedBefore) {
        if (projectCode) {
          const found = await reconcile(client, projectCode, jobKey, targetField, input.targetId);
          if (found) {
            log.warn('reattached to a job whose submission response was lost', { jobId: found.id });
            return { jobId: found.id, createdAt: found.created_at, reconciled: true };
          }
        } else {
          throw new SubmissionOutcomeUnknown(
            `an earlier attempt to submit for ${input.targetId} may have created a job, and no project code is configured to look it up; not submitting again`,
          );
        }
      }
      Context.current().heartbeat({ phase: 'sending' });
      try {
        const res = await KINDS[kind].send(client, input.targetId, signal, linkToWorkflow(ctx.temporalUiUrl));
        log.info('job submitted', { jobId: res.id, kind: jobKey, targetId: input.targetId });
        return { jobId: res.id, createdAt: res.created_at ?? null, reconciled: false };
      } catch (err) {
        if (!isAmbiguous(err)) {
          Context.current().heartbeat({ phase: 'rejected' });
          throw err;
        }
        if (!projectCode)
          throw new SubmissionOutcomeUnknown(
            `the submission for ${input.targetId} may have created a job (${(err as Error).message}), and no project code is configured to look it up; not submitting again`,
          );
        const found = await reconcile(client, projectCode, jobKey, targetField, input.targetId);
        if (found) {
          log.warn('submission response lost; found the job through the listing', { jobId: found.id });
          return { jobId: found.id, createdAt: found.created_at, reconciled: true };
        }
        throw err; // retryable; the next attempt looks again before it submits
      }
    });
  }

  return {
    /** Submits a profiling run once: a retry reattaches to the job a lost response created. */
    submitProfilingRun: async (input: SubmitInput): Promise<JobSubmitted> => {
      return submit('profiling', input);
    },

    /** Submits a test run once: a retry reattaches to the job a lost response created. */
    submitTestRun: async (input: SubmitInput): Promise<JobSubmitted> => {
      return submit('tests', input);
    },

    /** Starts test generation for a test suite once (TestGen's explicit call); a retry reattaches likewise. */
    submitTestGeneration: async (input: SubmitInput): Promise<JobSubmitted> => {
      return submit('generation', input);
    },
  };
}
