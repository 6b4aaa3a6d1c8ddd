/**
 * Hole 2 of the explorer's issue: a test run's requester whose first attempt sent it without the submitter (its
 * deployment proven to keep our id), and died before its record of that send reached Temporal, hands the run to its
 * suite's submitter; the batch then looked for that send from its own schedule time, less the clock-skew allowance.
 * A request that queued longer than that (a long queue, a slow restart) had its run looked for too late: not found,
 * sent again. The lookup now reaches back to when the requesting activity was first scheduled, before any of its sends.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MockActivityEnvironment } from '@temporalio/testing';
import { activityContext } from '../../src/activities/context.js';
import { submitter } from '../../src/exactly-once/submissions.js';
import { requestIdOf } from '../../src/exactly-once/messages.js';
import type { JobSubmitted } from '../../src/contract/types.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withFreshSimulator } from '../helpers/activities.js';
import { SimHttp } from '../helpers/sim.js';
import { quiet } from '../helpers/mock-activity.js';

const SUITE = SEED_IDS.testSuites.salesProd;
/** A Temporal client whose every workflow is running: the requester is still there. */
const requesterThere = {
  withAbortSignal: <R>(_: AbortSignal, fn: () => R) => fn(),
  workflow: { getHandle: () => ({ describe: async () => ({ status: { name: 'RUNNING' } }) }) },
};

test("hole 2: a batch looks for an earlier attempt's unrecorded send from the requester's first schedule", async () => {
  await withFreshSimulator(async (sim) => {
    // No skew allowance: the batch's own window starts when it was scheduled, after the earlier send.
    const deps = await simDeps(sim, { clockSkewMs: 0, submitSettleMs: 500 });
    const requester = { workflowId: 'wf-hole-2', runId: 'run-1', activityId: '3' };
    const scheduledAt = Date.now(); // the requesting activity, first scheduled
    // Its first attempt sent the run by itself, with our id in its metadata, and died before recording the send.
    const earlier = await new SimHttp(sim).as('admin', 'POST', `/api/v1/test-suites/${SUITE}/test-runs`, {
      metadata: { submission_id: requestIdOf(requester) },
    });
    assert.equal(earlier.status, 202);
    await sleep(1_500); // the request queued at the submitter; its batch is scheduled later
    const batch = new MockActivityEnvironment({ attempt: 1, scheduledTimestampMs: Date.now() }, {
      ...quiet,
      client: requesterThere,
    } as never);
    const input = { targetId: SUITE, requester, earlierUnlocked: { since: scheduledAt } };
    const turn = { prior: { mayHaveSent: false as const }, record: async () => undefined };
    const send = () => submitter(activityContext(deps)).sendFor('tests', input, turn);
    const out = await batch.run<[], JobSubmitted, typeof send>(send);
    assert.equal(out.jobId, (earlier.body as { id: string }).id, 'the earlier send found');
    assert.equal(out.reconciled, true);
    const runs = sim.controls.jobs().filter((j) => j.job_key === 'run-tests' && j.created_at >= scheduledAt);
    assert.equal(runs.length, 1, 'not sent again');
  });
});
