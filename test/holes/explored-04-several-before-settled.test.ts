/**
 * Found by the explorer (seed 693): a profiling run's submit was held by the service past the client's timeout, and
 * another client of the same account submitted two runs of the table group meanwhile. The lookup saw two new runs and
 * failed at once, naming them; our held request committed a second later, a run nobody named or watched. Several
 * candidates are now named only once the settle window has ended, when our held request can no longer commit: the
 * failure names ours too. The same holds for an order and a person's orders.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ActivityFailure, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { SEED_IDS } from '../../src/simulator/index.js';
import { runActivity, simDeps, SUBMIT_QUICK_RETRY } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';
import { FROZEN, SimHttp, faultHits } from '../helpers/sim.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups.finance;
const PROFILE = `/api/v1/table-groups/${TG}/profiling-runs`;
const ORDER = { kitchen: 'production', recipe: 'refresh-marts', variation: 'full', parameters: {} };
const CREATE = `/v2/order/create/${ORDER.kitchen}/${ORDER.recipe}/${ORDER.variation}`;

/** The failure an activity run ended with, under the workflow that ran it. */
const failureOf = (out: unknown) =>
  out instanceof WorkflowFailedError && out.cause instanceof ActivityFailure ? out.cause.cause : out;

describe('explored 4: several candidates while ours is held', () => {
  const s = devServerAndSimulator({ jobDurations: FROZEN });

  /**
   * Runs `activity`, its write held 2.5 s by the service (past the 1 s client timeout, within the 4 s window), while
   * another caller of the same account makes two of the same; answers the failure and what `list` shows new after.
   */
  async function heldBeside(activity: string, input: unknown, method: string, path: string, list: () => string[]) {
    const before = new Set(list());
    const held = s.sim.controls.addFault({ kind: 'delay', delay_ms: 2_500, method, path, count: 1 });
    const deps = await simDeps(s.sim, { soleWriter: false, submitSettleMs: 4_000, timeoutMs: 1_000 });
    const ran = runActivity(s.d.env, deps, activity, input, SUBMIT_QUICK_RETRY).catch((e: unknown) => e);
    await eventually('our write held', () => faultHits(s.sim, held) === 1);
    const other = new SimHttp(s.sim);
    for (let n = 0; n < 2; n++)
      assert.ok((await other.as('admin', method, path, method === 'PUT' ? { parameters: {} } : {})).status < 300);
    const failure = failureOf(await ran);
    return { failure, fresh: list().filter((id) => !before.has(id)) };
  }

  test('explored 4: a held profiling run is named with the two another client made', async () => {
    const { failure, fresh } = await heldBeside('submitProfilingRun', { targetId: TG }, 'POST', PROFILE, () =>
      s.sim.controls
        .jobs()
        .filter((j) => j.table_group_id === TG)
        .map((j) => j.id),
    );
    assert.equal(fresh.length, 3, 'theirs and ours, ours sent once');
    assert.ok(failure instanceof ApplicationFailure && failure.type === 'SubmissionOutcomeUnknown', String(failure));
    for (const id of fresh) assert.ok(failure.message.includes(id), `${id} named in: ${failure.message}`);
  });

  test('explored 4: a held order is named with two a person made', async () => {
    const { failure, fresh } = await heldBeside('runOrder', ORDER, 'PUT', CREATE, () =>
      s.sim.controls.orders().map((o) => o.id),
    );
    assert.equal(fresh.length, 3, 'theirs and ours, ours created once');
    assert.ok(failure instanceof ApplicationFailure && failure.type === 'OrderOutcomeUnknown', String(failure));
    for (const id of fresh) assert.ok(failure.message.includes(id), `${id} named in: ${failure.message}`);
  });
});
