/**
 * Which submissions may go without the target's submitter: a test run, where its deployment is proven to keep the
 * submission id we send in its metadata (reconcile.ts, echoProof), so that its id alone tells it. What each attempt,
 * and each lookup of an earlier attempt's send, must then assume (submission.ts).
 */
import { activityInfo } from '@temporalio/activity';
import type { JobKind } from '../contract/job-kinds.js';
import type { echoProof, Watermark } from './reconcile.js';
import { thisWorkflow } from './job-kinds.js';

/**
 * What a test run's submission knows before it sends (reconcile.ts, echoProof): the newest test runs, and whether
 * the deployment keeps our submission id, which tells our own run exactly. Then the first attempt sends without the
 * submitter, with those runs as its watermark; a retry goes through the submitter, and every lookup goes by the id
 * alone.
 */
export type Proof = Awaited<ReturnType<typeof echoProof>>;

/** Whether this attempt may send without the submitter: told exactly, and no earlier attempt that went through it. */
export const unlocked = (proof: Proof): boolean => proof.echoes && activityInfo().attempt === 1;

/**
 * What a submission is told before it sends: the watermark already taken (unlocked), whether its deployment keeps our
 * id (`echoes`), and whether an earlier attempt's send, if any, was made without the submitter (`earlierUnlocked`).
 * Such a run carries our id, so only the id finds it.
 */
export interface Told {
  mark?: Watermark;
  echoes: boolean;
  earlierUnlocked?: boolean;
  /**
   * When the requesting activity was first scheduled (epoch ms): before any send of its attempts, so an earlier
   * attempt's send whose record was lost is looked for from then, however long the request then queued (hole 2).
   */
  since?: number | undefined;
}

/**
 * The kinds that may be sent without the submitter (Proof): test runs. Such a send leaves no trace at the submitter,
 * so a later look at what an earlier attempt did cannot go by it: only a recorded refusal says nothing was sent.
 */
export const provable = (kind: JobKind): boolean => kind === 'tests';

/**
 * The input the target's submitter sends a job with: this activity's, for its workflow (the job's links name it, not
 * the submitter), and, for a test run whose earlier attempt may have sent it without the submitter (`mayHaveSent`:
 * proven then, no refusal recorded since), that attempt's send (`sending`, when recorded) to look for first.
 */
export function forSubmitter(
  kind: JobKind,
  input: { profile: string; targetId: string; projectCode?: string | undefined; caller?: object | undefined },
  sending: object | undefined,
  mayHaveSent: boolean,
): Record<string, unknown> {
  const { profile, targetId, projectCode } = input;
  const caller = input.caller ?? thisWorkflow();
  const since = activityInfo().scheduledTimestampMs;
  const earlierUnlocked =
    provable(kind) && mayHaveSent ? { earlierUnlocked: { ...(sending ? { sending } : {}), since } } : {};
  return { profile, targetId, ...(projectCode ? { projectCode } : {}), caller, ...earlierUnlocked };
}
