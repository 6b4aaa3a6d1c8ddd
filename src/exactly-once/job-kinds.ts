/**
 * How each kind of job (src/contract/job-kinds.ts) is sent, and the link back to the workflow that a submitted job
 * carries (TestGen shows it on the run's page). Used by the exactly-once submission (submission.ts).
 */
import { activityInfo } from '@temporalio/activity';
import type { ServiceClient, TestRunLink } from '../api/index.js';
import type { JobKind } from '../contract/job-kinds.js';
import type { SubmitInput } from '../activities/job-inputs.js';

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
