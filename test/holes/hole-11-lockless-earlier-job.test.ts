/**
 * Hole 11 of the explorer's issue: a submission sent by its own activity (no `lock`: no submitter) whose send was not
 * recorded (the attempt died before its heartbeat reached Temporal) looks for its job since the activity was
 * scheduled, less the clock-skew allowance. Without a submitter, nothing names the jobs our other submissions made on
 * the target in that time, so the lookup took an earlier job of ours for this one's: a job reported by two workflows.
 * Without the send's watermark and without a submitter, a job found by its target alone is now named, never taken,
 * even on a profile that declares itself the target's only writer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { activityFunctions } from '../../src/activities/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withFreshSimulator } from '../helpers/activities.js';
import { clientFor } from '../helpers/sim.js';
import { quiet } from '../helpers/mock-activity.js';

const TG = SEED_IDS.tableGroups;

test('hole 11: a lockless retry without its record never takes an earlier job of ours on the target', async () => {
  await withFreshSimulator(
    async (sim) => {
      const acts = activityFunctions(await simDeps(sim, { soleWriter: true, submitSettleMs: 1_000 }));
      // Another workflow of ours profiled the table group a moment ago (well inside the skew allowance).
      const earlier = await (await clientFor(sim)).profilingRuns.submit(TG.finance);
      // The first attempt died with its record lost (no heartbeat details), having sent nothing that committed.
      const env = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: undefined }, quiet);
      const out = await env.run(acts.submitProfilingRun, { targetId: TG.finance }).catch((e: unknown) => e);
      assert.ok(out instanceof ApplicationFailure && out.type === 'SubmissionOutcomeUnknown', String(out));
      assert.match(out.message, new RegExp(`new job ${earlier.id} on its target`));
      assert.equal(sim.controls.jobs().filter((j) => j.table_group_id === TG.finance).length, 1, 'nothing sent');
    },
    {},
    { variants: { listingTargets: true } },
  );
});
