/**
 * How often a requester far back in its submitter's line asks its place (src/exactly-once/ask-submitter.ts): a few
 * times, each nearer its turn, not once every few seconds for the minutes it waits. Counted on a line that moves at
 * the pace the submitter tells, with the jitter at either end; no clock is read.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LONGEST_ASK_GAP_MS, untilNearTurn } from '../../src/exactly-once/ask-submitter.js';
import { HELD_AT_MOST } from '../../src/exactly-once/messages.js';

/** How many times a requester `queued` in line asks before it is among the first HELD_AT_MOST, and how long it waits. */
function asksUntilNear(queued: number, eachMs: number, jitter: number): { asks: number; waitedMs: number } {
  let asks = 1;
  let waitedMs = 0;
  for (let place = queued; place >= HELD_AT_MOST; asks++) {
    const gap = untilNearTurn({ queued: Math.ceil(place), eachMs }, jitter);
    waitedMs += gap;
    place -= gap / eachMs;
  }
  return { asks, waitedMs };
}

test('a requester 2,000 in line asks its place a handful of times, not every 10 s of its 200 s wait', () => {
  for (const jitter of [0, 0.5, 1]) {
    const { asks, waitedMs } = asksUntilNear(2_000, 100, jitter);
    // A gap of at most 10 s would ask at least 20 times over these 200 s.
    assert.ok(waitedMs > 190_000, `jitter ${jitter}: waited ${waitedMs} ms`);
    assert.ok(asks <= 14, `jitter ${jitter}: asked ${asks} times`);
  }
});

test('a requester never waits past its turn at a steady pace, nor longer than the longest gap', () => {
  for (const [queued, eachMs] of [
    [6, 20],
    [50, 20],
    [2_000, 100],
    [100_000, 500],
  ] as const)
    for (const jitter of [0, 0.5, 1]) {
      const gap = untilNearTurn({ queued, eachMs }, jitter);
      assert.ok(gap <= Math.max(100, (queued - HELD_AT_MOST + 1) * eachMs), `${queued} at ${eachMs} ms: ${gap}`);
      assert.ok(gap <= LONGEST_ASK_GAP_MS, `${queued} at ${eachMs} ms: ${gap}`);
    }
});
