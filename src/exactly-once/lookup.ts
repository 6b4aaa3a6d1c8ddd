/**
 * The one lookup: after a write whose answer was lost, the job or order it created, if any. Every kind reads it
 * through a listing of its own (jobs: paged, newest first, each with its creation time; orders: ids only), and the
 * same rules hold for all:
 *
 * - a candidate is a write of this kind on this target, created after the send's mark (taken when the send starts),
 *   and not one its target's submitter recorded for an earlier send;
 * - the listing is read until it passes the mark; a listing that cannot be read to its end is **unknown**, never none;
 * - a candidate carrying our echoed submission id is ours, whatever else is new;
 * - one found by its target alone is ours only where the profile declares itself the target's only writer; more than
 *   one is unknown, with every candidate named, and nothing is taken;
 * - a candidate whose owner cannot be told yet (its target not shown) is looked at again.
 *
 * Before the settle window ends (the time a held request may still commit), only an echoed id decides; every other
 * outcome waits for the window's end, so that our own held request, committing late, is among what the answer names.
 */
import { CancelledFailure } from '@temporalio/common';

/** What was there when the send started: the newest creation time (service clock), and the ids listed at it. */
export interface Mark {
  /** The newest candidate's creation time before the send (ms); null when the listing was empty or tells no time. */
  at: number | null;
  /** The ids listed then (at `at`, or all of them where the listing tells no time). */
  ids: readonly string[];
}

export interface Candidate {
  id: string;
  /** Its creation time (ms, service clock); undefined where the listing tells none (orders). */
  createdAt?: number | undefined;
}

/** Whose a candidate is: ours by our echoed id, on our target with nothing more to tell, another's, not known yet. */
export type Whose = 'ours' | 'target' | 'other' | 'unknown';

export interface Listing<C extends Candidate = Candidate> {
  /** Page `n` (from 1), newest first; `last` when no page follows. */
  page(n: number): Promise<{ items: C[]; last: boolean }>;
  whose(c: C): Promise<Whose>;
}

/** The words a failure uses for each Unknown, `what` naming the kind ("job", "order") and the candidates `ids`. */
export function unknownWords(why: Unknown, what: string, ids: string[]): string {
  const named = ids.join(', ');
  switch (why) {
    case 'unreadable':
      return `the ${what} listing could not be read past the send's mark (new so far: ${named || 'none'})`;
    case 'undetermined':
      return `new ${what}(s) ${named} do not tell their target yet`;
    case 'several':
      return `${ids.length} new ${what}s match it (${named})`;
    case 'by target':
      return `new ${what} ${named} on its target carries nothing that tells whose it is (another client of this account may have made it)`;
  }
}

export type Outcome<C extends Candidate = Candidate> =
  | { found: C; byId: boolean }
  | { none: true }
  /** Why it cannot be told (Unknown); `settled` false while some candidate's owner is not known yet. */
  | { unknown: Unknown; candidates: string[]; settled: boolean };

/**
 * Why an outcome is unknown: the listing could not be read past the mark, a candidate's owner is not told yet,
 * several match, or one matches by its target alone where another client may have made it.
 */
export type Unknown = 'unreadable' | 'undetermined' | 'several' | 'by target';

/** What a lookup may take for ours. */
export interface Rules {
  /** The profile declares that nothing else writes to this target meanwhile: a lone target match is ours. */
  soleWriter: boolean;
  /** The jobs the target's submitter recorded for earlier sends: never this send's. */
  earlier: ReadonlySet<string>;
}

/** The candidates newer than the mark, read until the listing passes it; `complete` false when it cannot be. */
export async function newerThan<C extends Candidate>(
  l: Listing<C>,
  mark: Mark,
  rules: Rules,
): Promise<{ fresh: C[]; complete: boolean }> {
  const before = new Set(mark.ids);
  const seen = new Set<string>();
  const fresh: C[] = [];
  for (let n = 1; ; n++) {
    const { items, last } = await l.page(n);
    for (const c of items) {
      if (seen.has(c.id)) return { fresh, complete: false }; // a page repeats another: the listing ignores paging
      seen.add(c.id);
      if (c.createdAt !== undefined && mark.at !== null && c.createdAt < mark.at) return { fresh, complete: true };
      if (!before.has(c.id) && !rules.earlier.has(c.id)) fresh.push(c);
    }
    if (last) return { fresh, complete: true };
  }
}

/** One look: the outcome the rules give for what the listing shows now. */
export async function lookOnce<C extends Candidate>(l: Listing<C>, mark: Mark, rules: Rules): Promise<Outcome<C>> {
  const { fresh, complete } = await newerThan(l, mark, rules);
  const target: C[] = [];
  const undetermined: C[] = [];
  for (const c of fresh) {
    const whose = await l.whose(c);
    if (whose === 'ours') return { found: c, byId: true };
    if (whose === 'target') target.push(c);
    else if (whose === 'unknown') undetermined.push(c);
  }
  const candidates = [...target, ...undetermined].map((c) => c.id);
  if (!complete) return { unknown: 'unreadable', candidates, settled: true };
  if (undetermined.length) return { unknown: 'undetermined', candidates, settled: false };
  if (target.length === 0) return { none: true };
  if (target.length === 1 && rules.soleWriter) return { found: target[0]!, byId: false };
  return { unknown: target.length > 1 ? 'several' : 'by target', candidates, settled: true };
}

/** When to look: at once, after `firstMs`, then every `everyMs` until the window ends. */
export interface Cadence {
  firstMs: number;
  everyMs: number;
}

/**
 * Looks until the settle window ends (`settleMs` after `sentAt`): an echoed id ends it early, anything else is the
 * outcome of the look made once the window has ended. `pause` sleeps (and throws on the activity's cancel).
 */
export async function lookUntilSettled<C extends Candidate>(
  l: Listing<C>,
  mark: Mark,
  rules: Rules,
  window: { sentAt: number; settleMs: number; cadence: Cadence },
  pause: (ms: number) => Promise<void>,
  now: () => number = Date.now,
): Promise<Outcome<C>> {
  for (let n = 0; ; n++) {
    const left = window.sentAt + window.settleMs - now();
    const outcome = await lookOnce(l, mark, rules);
    if (('found' in outcome && outcome.byId) || left <= 0) return outcome;
    await pause(Math.min(left, n === 0 ? window.cadence.firstMs : window.cadence.everyMs));
  }
}

/** Sleeps `ms`, or until `signal` aborts (a CancelledFailure). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(new CancelledFailure('activity cancelled while looking for a lost answer'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
}
