/**
 * Which submissions may go without the per-target lock: a test run, where its deployment is proven to keep the
 * submission id we send in its metadata (reconcile.ts, echoProof), so that its id alone tells it. What each attempt,
 * and each lookup of an earlier attempt's send, must then assume (submission.ts).
 */
import { activityInfo } from '@temporalio/activity';
import type { JobKind } from '../contract/job-kinds.js';
import type { echoProof, Watermark } from './reconcile.js';

/**
 * What a test run's submission knows before it sends (reconcile.ts, echoProof): the newest test runs, and whether
 * the deployment keeps our submission id, which tells our own run exactly. Then the first attempt sends without the
 * lock, with those runs as its watermark; a retry takes the lock (an earlier attempt may hold it), and every lookup
 * goes by the id alone.
 */
export type Proof = Awaited<ReturnType<typeof echoProof>>;

/** Whether this attempt may send without the lock: told exactly, and no earlier attempt that could hold it. */
export const unlocked = (proof: Proof): boolean => proof.echoes && activityInfo().attempt === 1;

/**
 * What a submission is told before it sends: the watermark already taken (unlocked), whether its deployment keeps our
 * id (`echoes`), and whether an earlier attempt's send, if any, was made without the lock (`earlierUnlocked`: no lock
 * kept and no send recorded, for a kind that may go unlocked). Such a run carries our id, so only the id finds it.
 */
export interface Told {
  mark?: Watermark;
  echoes: boolean;
  earlierUnlocked?: boolean;
}

/**
 * The kinds that may be sent without the lock (Proof): test runs. Such a send leaves no lock behind, so a later
 * look at what an earlier attempt did cannot go by the lock: only a recorded refusal says nothing was sent.
 */
export const provable = (kind: JobKind): boolean => kind === 'tests';

/** Whether an earlier attempt of this one may have sent without the lock (see Told). */
export const unlockedBefore = (kind: JobKind, kept: boolean, sending: unknown): boolean =>
  provable(kind) && activityInfo().attempt > 1 && !kept && sending === undefined;
