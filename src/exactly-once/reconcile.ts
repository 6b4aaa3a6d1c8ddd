/**
 * Finding the job a lost submission created, and only that one. Before sending, the submission notes the newest jobs
 * of its kind (the watermark); afterwards a job is a candidate only if it is newer than the watermark and was not
 * listed in it, by the service's own clock (no skew allowance, so an earlier run's job is never a candidate). A
 * candidate is ours when its caller metadata carries our submission id (test runs, where the deployment keeps
 * metadata), or else when its target is ours: from the listing where the deployment shows it, from the run's own
 * record where it does not (TestGen 5.134 shows a profiling run's table group once the run has started). The target's
 * submitter (src/exactly-once/workflow/submitter.ts) ensures no other submission of ours to that target is in flight meanwhile.
 */
import { GarbledResponse, NotFound, UnexpectedResponse, type Job, type ServiceClient } from '../api/index.js';
import { JOB_KINDS, type JobKind } from '../contract/job-kinds.js';
import { log } from '@temporalio/activity';
import type { JobSubmitted } from '../contract/types.js';
import { roomForAnotherAttempt } from '../activities/deadline.js';
import { SubmissionOutcomePending, SubmissionOutcomeUnknown } from '../activities/errors.js';
import { beatingWhile } from '../activities/heartbeats.js';
import {
  lookOnce,
  lookUntilSettled,
  pause,
  unknownWords,
  type Candidate,
  type Listing,
  type Mark,
  type Whose,
} from './lookup.js';

/**
 * The newest jobs of one kind before a submission was sent: the newest one's creation time, and the ids of the jobs
 * listed then that are not older than it (usually the newest alone; more when several share its time). A job older
 * than `newest` is never a candidate (newJobs), so its id is not kept: the record goes with every send. For test
 * runs, also whether the deployment was seen to keep our submission id (`echoes`, keepsOurId): then the lookup tells
 * ours by the id alone, and a run without it is another caller's.
 */
export interface Watermark {
  ids: string[];
  newest: string | null;
  echoes?: boolean | undefined;
}

const PAGE = 50;

export interface LookupTarget {
  client: ServiceClient;
  projectCode: string;
  kind: JobKind;
  jobKey: string;
  targetId: string;
  /** Carried in the test run's caller metadata; identifies our own submission exactly. */
  submissionId: string;
  signal: AbortSignal;
  /** The jobs the target's submitter answered earlier sends with: never this submission's (workflow/submitter.ts). */
  recorded?: (() => Promise<string[]>) | undefined;
  /**
   * A test run is ours only when its metadata carries our submission id, never by its target: the deployment was seen
   * to keep it before the send (Watermark `echoes`).
   */
  exact?: boolean | undefined;
  /**
   * A job may be taken for ours by its target alone: the profile declares that nothing else writes to its targets while
   * a send of ours is in flight (soleWriter). Otherwise one found by its target is named, never taken.
   */
  byTarget?: boolean | undefined;
}

/** The newest jobs of the kind. */
const newest = (t: LookupTarget) =>
  t.client.jobs.list(t.projectCode, { job_key: t.jobKey, page: 1, limit: PAGE }, { signal: t.signal });

/** Where a watermark's "before" ends, by the service's clock: a job created before `newest` is not new. */
const sinceOf = (newest: string | null): number => (newest === null ? -Infinity : Date.parse(newest));

/** Whether a job listed after the watermark was there before it by time alone (its id then need not be kept). */
const olderThan = (job: Job, since: number): boolean => Date.parse(job.created_at) < since;

/** The watermark of a listing, newest first. */
export function watermarkOf(items: Job[]): Watermark {
  const newest = items[0]?.created_at ?? null;
  const since = sinceOf(newest);
  return { ids: items.filter((j) => !olderThan(j, since)).map((j) => j.id), newest };
}

/** Notes the newest jobs of the kind, before sending; for test runs, whether the deployment keeps our id. */
export async function takeWatermark(t: LookupTarget): Promise<Watermark> {
  const { items } = await newest(t);
  return { ...watermarkOf(items), ...(t.kind === 'tests' ? { echoes: await keepsOurId(t, items) } : {}) };
}

/** The submission id a test run's caller metadata carries, if it carries any metadata: undefined without. */
const submissionIdIn = (meta: unknown): unknown =>
  typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>).submission_id : undefined;

/** A job some other caller made: another source than the API, or another user. */
const notFromUs = (t: LookupTarget, job: Job): boolean =>
  (typeof job.source === 'string' && job.source !== 'api') ||
  (typeof job.created_by === 'string' && !!t.client.username && job.created_by !== t.client.username);

/**
 * Whether the deployment keeps a test run's caller metadata: the newest run an API caller of this account submitted,
 * before this send, shows a `submission_id`, as every test run we submit sends (TestGen 5.134 keeps it; the spec's
 * summary has no such field). Not shown (no such run yet, a run without it, another client of the account, a record
 * that cannot be read now): not known, and the lookup goes by target, as for the other kinds.
 */
async function keepsOurId(t: LookupTarget, items: Job[]): Promise<boolean> {
  const probe = items.find((job) => !notFromUs(t, job));
  if (!probe) return false;
  try {
    return (
      typeof submissionIdIn((await t.client.testRuns.summary(probe.id, { signal: t.signal })).metadata) === 'string'
    );
  } catch (err) {
    if (t.signal.aborted) throw err;
    return false; // not known, whatever went wrong (an outage too): nothing needs retrying for it
  }
}

type Verdict = 'ours' | 'ours by id' | 'other' | 'undetermined';

/**
 * Whether a new job is ours. A run record that cannot be read as it should (gone, garbled, breaking its schema)
 * leaves that job undetermined, to be looked at again, rather than failing the lookup: it may be anyone's job.
 */
async function identify(t: LookupTarget, job: Job): Promise<Verdict> {
  try {
    return await identifyBy(t, job);
  } catch (err) {
    if (err instanceof NotFound || err instanceof UnexpectedResponse || err instanceof GarbledResponse)
      return 'undetermined';
    throw err;
  }
}

/** By metadata where kept, by target otherwise; undetermined while the target is unknown. */
async function identifyBy(t: LookupTarget, job: Job): Promise<Verdict> {
  if (notFromUs(t, job)) return 'other';
  const field = JOB_KINDS[t.kind].targetField;
  let target: unknown = job[field];
  if (t.kind === 'tests') {
    const run = await t.client.testRuns.summary(job.id, { signal: t.signal });
    const meta = run.metadata;
    const id = submissionIdIn(meta);
    if (id !== undefined) return id === t.submissionId ? 'ours by id' : 'other';
    if (meta && typeof meta === 'object') return 'other'; // another caller's metadata
    if (t.exact) return 'other'; // the deployment keeps ours: a run without it is not ours
    target ??= run.test_suite_id;
  } else if (t.kind === 'profiling' && (target === undefined || target === null)) {
    target = (await t.client.profilingRuns.summary(job.id, { signal: t.signal })).table_group_id;
  }
  if (target === undefined || target === null) return 'undetermined';
  return target === t.targetId ? 'ours' : 'other';
}

/** A listed job, as the lookup (src/exactly-once/lookup.ts) reads it. */
export type JobCandidate = Candidate & { job: Job };

const WHOSE: Record<Verdict, Whose> = { 'ours by id': 'ours', ours: 'target', other: 'other', undetermined: 'unknown' };

/**
 * The jobs of the kind, newest first, as the lookup reads them: the listing is the whole project's, and a job of ours
 * behind a thousand newer ones of other targets is still ours, so it pages until it passes the mark.
 */
export function jobListing(t: LookupTarget): Listing<JobCandidate> {
  return {
    page: async (page) => {
      const list = await t.client.jobs.list(
        t.projectCode,
        { job_key: t.jobKey, page, limit: PAGE },
        { signal: t.signal },
      );
      const items = list.items.map((job) => ({ id: job.id, createdAt: Date.parse(job.created_at), job }));
      return { items, last: list.items.length < list.limit || page * list.limit >= list.total };
    },
    whose: async (c) => WHOSE[await identify(t, c.job)],
  };
}

/** A watermark as the lookup's mark: a job created before its newest is not new. */
export const markOf = (w: Watermark): Mark => ({ at: w.newest === null ? null : Date.parse(w.newest), ids: w.ids });

/**
 * After a send whose answer was lost: the job it created, looked up (src/exactly-once/lookup.ts over the listing
 * above) at once, then until the held request could no longer commit (`settleMs` after the send). Undefined when it
 * created none;
 * SubmissionOutcomeUnknown when several new jobs match, or when one matches by its target alone where that proves
 * nothing: another client may write to the target (the profile does not declare `soleWriter`). New jobs whose target
 * the service does not tell yet (TestGen names a profiling run's table group only once the run starts) are a state,
 * not a failure: they are looked at again until the attempt must end (`until`), then by the next attempt
 * (SubmissionOutcomePending, retryable). Only an activity with no room for another attempt fails, naming them, so a
 * job of ours is never left unwatched unsaid.
 */
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
