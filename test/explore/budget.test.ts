/** The explorer's time budget (`--minutes`): no seed, and no world for one, starts once it is spent. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explore } from './main.js';

test('explore: a spent time budget starts no seed and no world', async () => {
  const heard: number[] = [];
  const out = await explore([1, 2, 3], 2, (o) => heard.push(o.seed), Date.now() - 1);
  assert.deepEqual(out, []);
  assert.deepEqual(heard, []);
});
