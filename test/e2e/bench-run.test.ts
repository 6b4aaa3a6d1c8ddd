/**
 * `npm run bench` (bench/run.ts) keeps running from a clean checkout and prints a row for each of its benchmarks; it
 * removes what it wrote. Its figures are not judged: a test on a shared machine never passes or fails on speed.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { runScriptInOwnTmp } from '../helpers/processes.js';

const bench = fileURLToPath(new URL('../../bench/run.js', import.meta.url));

test('bench prints every benchmark as a ratio side by side, and leaves nothing behind', async () => {
  const { code, out, left } = await runScriptInOwnTmp(bench);
  assert.equal(code, 0, out);
  for (const row of [
    /^client: 200 sequential calls +keep-alive [\d.]+ ms +fresh connections [\d.]+ ms +fresh\/keep-alive time [\d.]+×/m,
    /^client: 200 calls, 50 concurrent +keep-alive [\d.]+ ms/m,
    /^import preview of 5000 definitions +[\d.]+ ms +[\d.]+ µs\/definition$/m,
    /^import preview of 20000 definitions +[\d.]+ ms/m,
    /^import scaling 5k → 20k +[\d.]+× time per definition/m,
    /^waiting: heartbeat +\d+ history events +\d+ polls$/m,
    /^waiting: deferrable +\d+ history events +\d+ polls/m,
    /^waiting: history per strategy +deferrable\/heartbeat events [\d.]+×/m,
  ])
    assert.match(out, row);
  assert.deepEqual(left, [], 'the claim checks and exports of the waiting benchmark are removed');
});
