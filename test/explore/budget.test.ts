/**
 * The explorer's options: its time budget (`--minutes`: no seed, and no world for one, starts once it is spent), the
 * declared sole writer (`--sole-writer`), made true on the seed, and the calm schedule (`--calm`), without faults,
 * kills or freezes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { calm, drawSoleWriter, draw } from './draw.js';
import { drawing, explore, replayCommand } from './main.js';

test('explore: a spent time budget starts no seed and no world', async () => {
  const heard: number[] = [];
  const out = await explore([1, 2, 3], 2, (o) => heard.push(o.seed), Date.now() - 1);
  assert.deepEqual(out, []);
  assert.deepEqual(heard, []);
});

test('explore --sole-writer: the declaration on every seed, and no other writer on it', () => {
  // Seed 22 draws another API client; seed 100 people's orders too.
  for (const seed of [22, 100]) {
    const drawn = draw(seed);
    const declared = drawSoleWriter(seed);
    assert.equal(drawn.soleWriter, false);
    assert.equal(declared.soleWriter, true);
    assert.ok(drawn.steps.some((x) => (x.what === 'foreign' && x.jobs.as === 'api') || x.what === 'person-order'));
    assert.ok(!declared.steps.some((x) => (x.what === 'foreign' && x.jobs.as === 'api') || x.what === 'person-order'));
    assert.deepEqual(
      declared.steps.filter((x) => x.what === 'fault'),
      drawn.steps.filter((x) => x.what === 'fault'),
      'the same faults at the same instants',
    );
    assert.deepEqual(declared.requesters, drawn.requesters);
  }
  assert.equal(replayCommand(7, { soleWriter: true, calm: false }), 'npm run explore -- --seed 7 --sole-writer');
});

test('explore --calm: the seed without its faults, kills and freezes; everything else as drawn', () => {
  // Seed 113 draws all of them, with other writers, a long listing and the clock ahead.
  const drawn = draw(113);
  const quiet = calm(drawn);
  const disturbing = new Set(['fault', 'kill', 'freeze']);
  for (const what of disturbing)
    assert.ok(
      drawn.steps.some((x) => x.what === what),
      `seed 113 draws a ${what}`,
    );
  assert.deepEqual(
    quiet.steps,
    drawn.steps.filter((x) => !disturbing.has(x.what)),
  );
  assert.ok(quiet.steps.some((x) => x.what === 'long-listing') && quiet.steps.some((x) => x.what === 'person-order'));
  assert.deepEqual({ ...quiet, steps: [] }, { ...drawn, steps: [] }, 'requesters, cancels, clock and cells as drawn');
  const both = drawing({ soleWriter: true, calm: true })(113);
  assert.deepEqual(both, calm(drawSoleWriter(113)));
  assert.equal(
    replayCommand(113, { soleWriter: true, calm: true }),
    'npm run explore -- --seed 113 --sole-writer --calm',
  );
});
