/**
 * The explorer's options: its time budget (`--minutes`: no seed, and no world for one, starts once it is spent), and
 * the declared sole writer (`--sole-writer`), made true on the seed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drawSoleWriter, draw } from './draw.js';
import { explore, replayCommand } from './main.js';

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
  assert.equal(replayCommand(7, true), 'npm run explore -- --seed 7 --sole-writer');
});
