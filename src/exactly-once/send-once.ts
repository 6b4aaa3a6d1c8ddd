/**
 * One send of a job to its target, made once (write-once.ts): how each kind is sent, with the link back to the
 * workflow a job carries (TestGen shows it on the run's page); where the jobs it may have created are looked up (its
 * submission id, the target's listing); and, after a send that may have landed, the look for the job it created
 * (reconcile.ts). submissions.ts decides who sends and when; this file is the send itself.
 */
import { activityInfo, Context, log } from '@temporalio/activity';
import type { z } from 'zod';
import type { JobSubmitted } from '../contract/types.js';
import type { ActivityContext } from '../activities/context.js';
import { SubmissionOutcomeUnknown } from '../activities/errors.js';
import type { SubmitInput } from '../activities/job-inputs.js';
import type { ServiceClient, TestRunLink } from '../api/index.js';
import { findLostJob, takeWatermark, type LookupTarget, type Watermark } from './reconcile.js';
import { JOB_KINDS, type JobKind } from '../contract/job-kinds.js';
import { writeOnce, type Outstanding, type Phase, type Prior } from './write-once.js';
import { recentJobsQuery, requestIdOf } from './messages.js';
import { beatingWhile } from '../activities/heartbeats.js';

/** This activity's workflow, as a job's caller metadata names it. */
export function thisWorkflow(): NonNullable<SubmitInput['caller']> {
  const info = activityInfo();
  const own = info.workflowExecution;
  return {
    workflowId: own?.workflowId ?? 'unknown',
    runId: own?.runId ?? 'unknown',
    workflowType: info.workflowType ?? null,
    namespace: info.workflowNamespace ?? info.namespace,
  };
}

/** The workflow a job points back to: the caller (the requester a submitter sends for) when given, else this one. */
export function linkTo(caller: SubmitInput['caller'], uiUrl: string | undefined, submissionId: string): TestRunLink {
  const who = caller ?? thisWorkflow();
  const { workflowId, runId, workflowType, namespace } = who;
  return {
    metadata: {
      workflow_id: workflowId,
      run_id: runId,
      workflow_type: workflowType,
      namespace,
      submission_id: submissionId,
    },
    ...(uiUrl
      ? {
          externalUrl: `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}/history`,
        }
      : {}),
  };
}

type Send = (
  client: ServiceClient,
  targetId: string,
  call: { signal: AbortSignal; requestId: string; leaveBy: number },
  link: TestRunLink,
) => Promise<{ id: string; created_at?: string }>;

/** How each kind of job is sent (its activity and job key are the contract's: JOB_KINDS), with its submission's id. */
export const SENDERS: Record<JobKind, Send> = {
  profiling: (client, id, call) => client.profilingRuns.submit(id, call),
  tests: (client, id, call, link) => client.testRuns.submit(id, { ...call, ...link }),
  generation: (client, id, call) => client.testGeneration.submit(id, call),
};

/** Where a submission records its phase: at its target's submitter, before the send leaves (send-in-turn.ts). */
export type RecordPhase = (phase: Phase<Watermark | null>) => void | Promise<void>;

/** Sending a job once, for the submissions of `ctx`'s worker. */
export function sender(ctx: ActivityContext) {
  /** After a send that may have landed: the job it created, if any (reconcile.ts). */
  const settle = (t: LookupTarget, sentAt: number, mark: Watermark, until: number) =>
    findLostJob(t, { sentAt, mark, until, settleMs: ctx.submitSettleMs });

  /**
   * Where the jobs a submission may have created are looked up. Its id, carried in a test run's metadata, names the
   * requesting activity: `requester` when a submitter sends it, else activity `activityId` of this workflow.
   */
  function lookupTarget(
    kind: JobKind,
    input: Pick<z.output<typeof SubmitInput>, 'profile' | 'targetId' | 'projectCode'> &
      Partial<Pick<z.output<typeof SubmitInput>, 'requester' | 'submitterId'>>,
    activityId: string,
    signal: AbortSignal,
  ) {
    const { client, projectCode: profileProject, soleWriter } = ctx.profile(input.profile);
    const projectCode = input.projectCode ?? profileProject;
    const own = activityInfo().workflowExecution;
    const who = input.requester ?? { workflowId: own?.workflowId ?? '-', runId: own?.runId ?? '-', activityId };
    const submissionId = requestIdOf(who);
    const { jobKey } = JOB_KINDS[kind];
    const { submitterId } = input;
    const recorded = submitterId
      ? () => beatingWhile(Context.current().client.workflow.getHandle(submitterId).query(recentJobsQuery))
      : undefined;
    const byTarget = soleWriter === true;
    const target: LookupTarget | undefined = projectCode
      ? {
          client,
          projectCode,
          kind,
          jobKey,
          targetId: input.targetId,
          submissionId,
          signal,
          recorded,
          byTarget,
        }
      : undefined;
    return { client, submissionId, target };
  }

  /** Sends the submission once (write-once.ts): an attempt after one that may have sent looks for its job first. */
  function sendOnce(
    kind: JobKind,
    input: Pick<z.output<typeof SubmitInput>, 'profile' | 'targetId' | 'projectCode' | 'caller'> &
      Partial<Pick<z.output<typeof SubmitInput>, 'requester' | 'submitterId'>>,
    signal: AbortSignal,
    prior: Prior<Watermark | null>,
    record: RecordPhase,
    outstanding: Outstanding,
    until: number,
  ): Promise<JobSubmitted> {
    const { jobKey } = JOB_KINDS[kind];
    const send = SENDERS[kind];
    const { client, submissionId, target } = lookupTarget(kind, input, activityInfo().activityId, signal);
    return writeOnce(
      {
        prior,
        mark: async () => (target ? takeWatermark(target) : null),
        send: async (leaveBy) => {
          const res = await send(
            client,
            input.targetId,
            { signal, requestId: submissionId, leaveBy },
            linkTo(input.caller, ctx.temporalUiUrl, submissionId),
          );
          log.info('job submitted', { jobId: res.id, kind: jobKey, targetId: input.targetId });
          return { jobId: res.id, createdAt: res.created_at ?? null, reconciled: false };
        },
        find: async (sending, cause) => {
          if (!target || !sending.mark)
            throw new SubmissionOutcomeUnknown(
              `the submission for ${input.targetId} may have created a job${cause instanceof Error ? ` (${cause.message})` : ''}, and no project code is configured to look it up; not submitting again`,
            );
          // Told by its id alone where the deployment keeps it (seen at the mark).
          const by = sending.mark.echoes === true ? { ...target, exact: true } : target;
          return settle(by, sending.sentAt, sending.mark, until);
        },
        record,
      },
      outstanding,
    );
  }

  return { sendOnce };
}
