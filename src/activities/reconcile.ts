/**
 * Finding the job a lost submission created, and only that one. Before sending, the submission notes the newest jobs
 * of its kind (the watermark); afterwards a job is a candidate only if it is newer than the watermark and was not
 * listed in it, by the service's own clock (no skew allowance, so an earlier run's job is never a candidate). A
 * candidate is ours when its caller metadata carries our submission id (test runs, where the deployment keeps
 * metadata), or else when its target is ours: from the listing where the deployment shows it, from the run's own
 * record where it does not (TestGen 5.134 shows a profiling run's table group once the run has started). The per-target
 * lock (src/workflows/submission.ts) ensures no other submission of ours to that target is in flight meanwhile. A test
 * run needs no lock where the deployment is proven to keep its metadata (echoProof): then only its id makes it ours.
 */
import { GarbledResponse, NotFound, UnexpectedResponse, type Job, type ServiceClient } from '../api/index.js';
import { JOB_KINDS, type JobKind } from '../contract/job-kinds.js';

/**
 * The newest jobs of one kind before a submission was sent: the newest one's creation time, and the ids of the jobs
 * listed then that are not older than it (usually the newest alone; more when several share its time). A job older
 * than `newest` is never a candidate (newJobs), so its id is not kept: the record goes with every send.
 */
export interface Watermark {
  ids: string[];
  newest: string | null;
}

/**
 * Where a reconciliation stands: the job found (`byId`: by our submission id, which no other caller's job carries; else
 * by its target and time), no job, or jobs whose target cannot be told yet.
 */
export type Lookup =
  { found: Job; byId: boolean } | { none: true } | { undetermined: string[] } | { several: string[] };

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
  /** The jobs the target's submitter created since a time: never this submission's (src/workflows/submitter.ts). */
  createdBefore?: ((sinceMs: number) => Promise<string[]>) | undefined;
  /**
   * The deployment is proven to keep a test run's caller metadata (`echoProof`): a test run is ours only when its
   * metadata carries our submission id, never by its target, so the lookup needs no submitter.
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

/** Notes the newest jobs of the kind, before sending. */
export async function takeWatermark(t: LookupTarget): Promise<Watermark> {
  return watermarkOf((await newest(t)).items);
}

/** The submission id a test run's caller metadata carries, if it carries any metadata: undefined without. */
const submissionIdIn = (meta: unknown): unknown =>
  typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>).submission_id : undefined;

/** A job some other caller made: another source than the API, or another user. */
const notFromUs = (t: LookupTarget, job: Job): boolean =>
  (typeof job.source === 'string' && job.source !== 'api') ||
  (typeof job.created_by === 'string' && !!t.client.username && job.created_by !== t.client.username);

/**
 * The newest test runs (a watermark, if taken just before the send), and whether the deployment is proven to keep a
 * test run's caller metadata: the newest one an API caller submitted shows a `submission_id` in its metadata, as
 * every test run we submit sends. Then our own is told exactly by its id (TestGen 5.134 keeps it; the spec's summary
 * has no such field). Unproven (no such run yet, a run without it, a record that cannot be read now), it is not.
 */
export async function echoProof(t: LookupTarget): Promise<{ mark: Watermark; echoes: boolean }> {
  const { items } = await newest(t);
  const probe = items.find((job) => !notFromUs(t, job));
  let echoes = false;
  if (probe) {
    try {
      const meta = (await t.client.testRuns.summary(probe.id, { signal: t.signal })).metadata;
      echoes = typeof submissionIdIn(meta) === 'string';
    } catch (err) {
      // Unproven, whatever went wrong (an outage too): the lock serves, and nothing needs retrying for the proof.
      if (t.signal.aborted) throw err;
    }
  }
  return { mark: watermarkOf(items), echoes };
}

/**
 * Jobs of the kind created after the watermark (newest first), read until the listing reaches older jobs or ends,
 * however many pages that takes: the listing is the whole project's, and a job of ours behind a thousand newer ones of
 * other targets is still ours. Without a watermark (the attempt that took it died before its heartbeat reached
 * Temporal), jobs created since `fallbackSinceMs`, except `others`: the jobs other submissions of ours are known to
 * have created. `complete` is false when the listing cannot be read to its end (a page repeats what an earlier one
 * showed: a deployment that ignores paging); a job may then hide past it.
 */
async function newJobs(
  t: LookupTarget,
  mark: Watermark | null,
  fallbackSinceMs: number,
  others: ReadonlySet<string>,
): Promise<{ jobs: Job[]; complete: boolean }> {
  const known = new Set([...(mark?.ids ?? []), ...others]);
  const since = mark ? sinceOf(mark.newest) : fallbackSinceMs;
  const out: Job[] = [];
  const seen = new Set<string>();
  for (let page = 1; ; page++) {
    const list = await t.client.jobs.list(
      t.projectCode,
      { job_key: t.jobKey, page, limit: PAGE },
      { signal: t.signal },
    );
    for (const job of list.items) {
      if (seen.has(job.id)) return { jobs: out, complete: false };
      seen.add(job.id);
      if (olderThan(job, since)) return { jobs: out, complete: true };
      if (!known.has(job.id)) out.push(job);
    }
    if (list.items.length < list.limit || page * list.limit >= list.total) return { jobs: out, complete: true };
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

/** Looks for the job our submission created among the jobs newer than the watermark. */
export async function lookUp(
  t: LookupTarget,
  mark: Watermark | null,
  fallbackSinceMs: number,
  others: ReadonlySet<string> = new Set(),
): Promise<Lookup> {
  const ours: Job[] = [];
  const undetermined: string[] = [];
  const { jobs, complete } = await newJobs(t, mark, fallbackSinceMs, others);
  if (!complete) undetermined.push('(the rest of a listing that repeats its pages)');
  for (const job of jobs) {
    const verdict = await identify(t, job);
    // A job carrying our submission id is ours, whatever else is new on the target: no other caller's carries it.
    if (verdict === 'ours by id') return { found: job, byId: true };
    if (verdict === 'ours') ours.push(job);
    else if (verdict === 'undetermined') undetermined.push(job.id);
  }
  if (ours.length === 1) return { found: ours[0]!, byId: false };
  if (ours.length > 1) return { several: ours.map((j) => j.id) };
  if (undetermined.length) return { undetermined };
  return { none: true };
}
