/**
 * Hole 6 of the explorer's issue: submitters are keyed by task queue and profile, so two fleets or two profiles of
 * one account on one target do not take turns; and an order's lookup took any new order of its recipe and variation,
 * a person's or the kitchen scheduler's among them. Orders carry nothing of their caller, so by default a new order
 * found by its recipe alone is now named in OrderOutcomeUnknown, never taken; only a profile that declares itself its
 * targets' only writer (DATAOPS_SOLE_WRITER) takes it, and a worker refuses that declaration on two profiles of one
 * account (test/config/worker-config.test.ts). Keying submitters by deployment and target is left to #75.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { ActivityFailure, WorkflowFailedError } from '@temporalio/client';
import { runActivity, simDeps, SUBMIT_QUICK_RETRY } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { FROZEN, SimHttp, faultHits } from '../helpers/sim.js';
import { eventually } from '../helpers/wait.js';

const ORDER = { kitchen: 'production', recipe: 'refresh-marts', variation: 'full', parameters: {} };
const s = devServerAndSimulator({ jobDurations: FROZEN });

test("hole 6: a person's order made while ours was lost is named, never taken for ours", async () => {
  const known = new Set(s.sim.controls.orders().map((o) => o.id));
  // Our create is refused with a 503 (nothing created; the client cannot know that) ...
  const lost = s.sim.controls.addFault({ kind: 'status', status: 503, method: 'PUT', path: '/v2/order/create/' });
  const deps = await simDeps(s.sim, { soleWriter: false, submitSettleMs: 3_000 });
  const ran = runActivity(s.d.env, deps, 'runOrder', ORDER, SUBMIT_QUICK_RETRY).catch((e: unknown) => e);
  await eventually('our create lost', () => faultHits(s.sim, lost) === 1);
  // ... and a person creates the same order in the kitchen's UI while ours is looked for.
  const path = `/v2/order/create/${ORDER.kitchen}/${ORDER.recipe}/${ORDER.variation}`;
  assert.equal((await new SimHttp(s.sim).as('admin', 'PUT', path, { parameters: {} })).status, 200);
  const out = await ran;
  const person = s.sim.controls.orders().filter((o) => !known.has(o.id));
  assert.equal(person.length, 1, 'the person’s order only: ours was not sent again');
  const failure = out instanceof WorkflowFailedError && out.cause instanceof ActivityFailure ? out.cause.cause : out;
  assert.ok(failure instanceof ApplicationFailure && failure.type === 'OrderOutcomeUnknown', String(out));
  assert.match(failure.message, new RegExp(`new order ${person[0]!.id}`));
});
