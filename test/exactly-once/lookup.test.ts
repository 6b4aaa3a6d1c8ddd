/**
 * The one lookup's rules (src/exactly-once/lookup.ts), on listings built by hand: each rule has a case that fails
 * without it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  lookOnce,
  lookUntilSettled,
  type Candidate,
  type Listing,
  type Outcome,
  type Mark,
  type Rules,
  type Whose,
} from '../../src/exactly-once/lookup.js';

/** A listing of `items` (newest first) in pages of `size`, whose owners `whose` names (default: another's). */
function listing(items: Candidate[], whose: Record<string, Whose> = {}, size = 2): Listing & { pagesRead: number } {
  const l = {
    pagesRead: 0,
    page: async (n: number) => {
      l.pagesRead = Math.max(l.pagesRead, n);
      const from = (n - 1) * size;
      return { items: items.slice(from, from + size), last: from + size >= items.length };
    },
    whose: async (c: Candidate): Promise<Whose> => whose[c.id] ?? 'other',
  };
  return l;
}

const job = (id: string, createdAt: number): Candidate => ({ id, createdAt });
/** The outcome naming `id` as ours; matched by id alone (the candidate's other fields are the listing's). */
const found = (id: string, byId: boolean) => ({ found: { id }, byId });
/** An outcome with the found candidate cut to its id, to compare with `found`. */
const idOnly = (o: Outcome) => ('found' in o ? { found: { id: o.found.id }, byId: o.byId } : o);
const MARK: Mark = { at: 100, ids: ['m'] };
const DEFAULT: Rules = { soleWriter: false, earlier: new Set() };

test('a candidate carrying our echoed id is ours, whatever else is new', async () => {
  const l = listing([job('x', 300), job('ours', 200), job('m', 100)], { x: 'target', ours: 'ours' });
  assert.deepEqual(idOnly(await lookOnce(l, MARK, DEFAULT)), found('ours', true));
});

test('nothing new after the mark is none; what the mark listed, and what is older, is never a candidate', async () => {
  const l = listing([job('m', 100), job('old', 50)], { m: 'target', old: 'target' });
  assert.deepEqual(await lookOnce(l, MARK, DEFAULT), { none: true });
});

test('the listing is read until it passes the mark, however many pages', async () => {
  const many = Array.from({ length: 9 }, (_, i) => job(`o${i}`, 500 - i));
  const l = listing([...many, job('ours', 150), job('m', 100), job('old', 10)], { ours: 'ours' });
  assert.deepEqual(idOnly(await lookOnce(l, MARK, DEFAULT)), found('ours', true));
  assert.equal(l.pagesRead, 6, 'stops at the page that passes the mark');
});

test('a listing that cannot be read past the mark (a repeated page) is unknown, never none', async () => {
  const repeating: Listing = {
    page: async () => ({ items: [job('a', 300), job('b', 200)], last: false }),
    whose: async () => 'other',
  };
  const o = await lookOnce(repeating, MARK, DEFAULT);
  assert.ok('unknown' in o && o.settled, JSON.stringify(o));
});

test('a job the serialiser recorded for an earlier send is skipped', async () => {
  const l = listing([job('earlier', 300), job('m', 100)], { earlier: 'target' });
  const rules: Rules = { soleWriter: true, earlier: new Set(['earlier']) };
  assert.deepEqual(await lookOnce(l, MARK, rules), { none: true });
});

test('one found by its target alone is ours only where the profile is the only writer', async () => {
  const l = listing([job('t', 300), job('m', 100)], { t: 'target' });
  assert.deepEqual(idOnly(await lookOnce(l, MARK, { ...DEFAULT, soleWriter: true })), found('t', false));
  const o = await lookOnce(l, MARK, DEFAULT);
  assert.ok('unknown' in o && o.settled && o.candidates.includes('t'), JSON.stringify(o));
});

test('more than one candidate is unknown, naming each, and nothing is taken, even as the only writer', async () => {
  const l = listing([job('t1', 300), job('t2', 200), job('m', 100)], { t1: 'target', t2: 'target' });
  const o = await lookOnce(l, MARK, { ...DEFAULT, soleWriter: true });
  assert.ok('unknown' in o, JSON.stringify(o));
  assert.deepEqual(o.candidates, ['t1', 't2']);
});

test('a candidate whose owner is not told yet is looked at again (unknown, not settled)', async () => {
  const l = listing([job('u', 300), job('m', 100)], { u: 'unknown' });
  const o = await lookOnce(l, MARK, { ...DEFAULT, soleWriter: true });
  assert.ok('unknown' in o && !o.settled && o.candidates.includes('u'), JSON.stringify(o));
});

test('a listing of ids only (orders): new is what the mark did not list', async () => {
  const l = listing([{ id: 'new' }, { id: 'a' }, { id: 'b' }], { new: 'target', a: 'target', b: 'target' });
  const mark: Mark = { at: null, ids: ['a', 'b'] };
  assert.deepEqual(idOnly(await lookOnce(l, mark, { ...DEFAULT, soleWriter: true })), found('new', false));
});

test('before the window ends only an echoed id decides; a lone target match waits for the window', async () => {
  let clock = 0;
  const items: Candidate[] = [job('m', 100)];
  const whose: Record<string, Whose> = {};
  const l = listing(items, whose);
  const pauses: number[] = [];
  const pause = async (ms: number) => {
    pauses.push(ms);
    clock += ms;
    // Another caller's job appears first, ours (held by the service) commits later in the window.
    if (clock === 1_000) {
      items.unshift(job('theirs', 200));
      whose.theirs = 'target';
    }
    if (clock === 3_000) {
      items.unshift(job('ours', 300));
      whose.ours = 'target';
    }
  };
  const o = await lookUntilSettled(
    l,
    MARK,
    { ...DEFAULT, soleWriter: true },
    { sentAt: 0, settleMs: 5_000, cadence: { firstMs: 1_000, everyMs: 2_000 } },
    pause,
    () => clock,
  );
  assert.ok('unknown' in o, `both are named once the window ends, neither taken: ${JSON.stringify(o)}`);
  assert.deepEqual(o.candidates, ['ours', 'theirs']);
  assert.deepEqual(pauses, [1_000, 2_000, 2_000]);
});

test('an echoed id ends the window early', async () => {
  let clock = 0;
  const l = listing([job('ours', 300), job('m', 100)], { ours: 'ours' });
  const o = await lookUntilSettled(
    l,
    MARK,
    DEFAULT,
    { sentAt: 0, settleMs: 60_000, cadence: { firstMs: 1_000, everyMs: 5_000 } },
    async (ms) => void (clock += ms),
    () => clock,
  );
  assert.deepEqual(idOnly(o), found('ours', true));
  assert.equal(clock, 0);
});
