/**
 * After a send whose answer was lost: the job it created, looked up (src/exactly-once/lookup.ts over reconcile.ts's
 * listing) at once, then until the held request could no longer commit (`settleMs` after the send). Undefined when it
 * created none;
 * SubmissionOutcomeUnknown when several new jobs match, or when one matches by its target alone where that proves
 * nothing: another client may write to the target (the profile does not declare `soleWriter`). New jobs whose target
 * the service does not tell yet (TestGen names a profiling run's table group only once the run starts) are a state,
 * not a failure: they are looked at again until the attempt must end (`until`), then by the next attempt
 * (SubmissionOutcomePending, retryable). Only an activity with no room for another attempt fails, naming them, so a
 * job of ours is never left unwatched unsaid.
 */
import { log } from '@temporalio/activity';
import type { JobSubmitted } from '../contract/types.js';
import { roomForAnotherAttempt } from '../activities/deadline.js';
import { SubmissionOutcomePending, SubmissionOutcomeUnknown } from '../activities/errors.js';
import { jobListing, markOf, type LookupTarget, type Watermark } from './reconcile.js';
import { lookOnce, lookUntilSettled, pause, unknownWords } from './lookup.js';
import { beatingWhile } from '../activities/heartbeats.js';

export interface LostSend {
  sentAt: number;
  /** The newest jobs before the send, as its submitter recorded them before it left. */
  mark: Watermark;
  settleMs: number;
  /** When this attempt must stop looking (epoch ms), leaving room for the send that may follow. */
  until: number;
}

const CADENCE = { firstMs: 1_000, everyMs: 5_000 };
const LONGEST_PAUSE_MS = 30_000;

export async function findLostJob(t: LookupTarget, lost: LostSend): Promise<JobSubmitted | undefined> {
  // The jobs the target's submitter answered earlier sends with are never this send's.
  const earlier = new Set(t.recorded ? await t.recorded() : []);
  const listing = jobListing(t);
  const mark = markOf(lost.mark);
  // A job found by its target alone is ours only where the profile declares that nothing else writes there.
  const rules = { soleWriter: t.byTarget === true, earlier };
  const window = { sentAt: lost.sentAt, settleMs: lost.settleMs, cadence: CADENCE };
  let seen = await lookUntilSettled(listing, mark, rules, window, (ms) => beatingWhile(pause(ms, t.signal)));
  // New jobs whose target the service does not tell yet: looked at again until this attempt must end.
  for (let every = CADENCE.everyMs; 'unknown' in seen && !seen.settled; every = Math.min(every * 2, LONGEST_PAUSE_MS)) {
    if (Date.now() + every > lost.until) throw undetermined(t.targetId, seen.candidates);
    log.info('a lost submission may be a job whose target is not told yet; looking again', { jobs: seen.candidates });
    await beatingWhile(pause(every, t.signal));
    seen = await lookOnce(listing, mark, rules);
  }
  if ('none' in seen) return undefined;
  if ('unknown' in seen)
    throw new SubmissionOutcomeUnknown(
      `a submission for ${t.targetId} may have been lost, and ${unknownWords(seen.unknown, 'job', seen.candidates)}; ` +
        'not submitting again (check it: it may be ours, running unwatched; a profile whose account nothing else ' +
        'writes with sets SOLE_WRITER)',
    );
  const { job } = seen.found;
  log.warn('submission answer lost; found the job it created', { jobId: job.id, targetId: t.targetId });
  return { jobId: job.id, createdAt: job.created_at, reconciled: true };
}

/** The end of an attempt with new jobs still undetermined: the next attempt looks on; with none left, a failure. */
function undetermined(targetId: string, jobs: string[]): Error {
  const which = `new job(s) ${jobs.join(', ')}, whose target the service does not tell yet`;
  if (roomForAnotherAttempt(1_000))
    return new SubmissionOutcomePending(`a submission for ${targetId} may have been lost; looking on among ${which}`);
  return new SubmissionOutcomeUnknown(
    `a submission for ${targetId} may have been lost, and its job may be among ${which}; not submitting again (check these jobs: one may be running unwatched)`,
  );
}
