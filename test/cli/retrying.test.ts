/**
 * Which submitter a run waits on, by its stage and start input (`status`'s `retrying` line asks it): the same ids the
 * workflows start their submitters under, and none at a stage that submits nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { lastFailure, submitterFor } from '../../src/cli/retrying.js';

const pipeline = {
  profile: 'ops',
  tableGroupId: 'tg-1',
  testSuiteId: 'ts-1',
  order: { kitchen: 'production', recipe: 'load', variation: 'daily', parameters: {} },
};

test("each submitting stage names its kind's submitter; an order's is its kitchen, recipe and variation", async () => {
  assert.equal(
    await submitterFor('q', 'submitting profiling', async () => pipeline),
    'dataops-submit/q/ops/profiling/tg-1',
  );
  assert.equal(await submitterFor('q', 'submitting test_run', async () => pipeline), 'dataops-submit/q/ops/tests/ts-1');
  assert.equal(
    await submitterFor('q', 'submitting generation', async () => pipeline),
    'dataops-submit/q/ops/generation/ts-1',
  );
  assert.equal(
    await submitterFor('q', 'running order', async () => pipeline),
    'dataops-order/q/ops/production/load/daily',
  );
  // runOrder's input is the order itself; an input without a profile has the contract's default one.
  const order = { kitchen: 'k', recipe: 'r', variation: 'v' };
  assert.equal(await submitterFor('q', 'running order', async () => order), 'dataops-order/q/default/k/r/v');
  assert.equal(
    await submitterFor('q', 'submitting profiling', async () => ({ tableGroupId: 'tg-2' })),
    'dataops-submit/q/default/profiling/tg-2',
  );
});

test('a stage that submits nothing, an unknown role, or no input names no submitter', async () => {
  for (const stage of ['waiting for profiling', 'applying quality gates', 'submitting lunch'])
    assert.equal(await submitterFor('q', stage, async () => pipeline), null, stage);
  // The input (a history read) is read only at a stage that has a submitter.
  const unread = async () => assert.fail('the input was read');
  assert.equal(await submitterFor('q', 'applying quality gates', unread), null);
  assert.equal(await submitterFor('q', 'submitting profiling', async () => undefined), null);
  assert.equal(
    await submitterFor('q', 'running order', async () => ({ tableGroupId: 'tg-1' })),
    null,
    'a pipeline without an order',
  );
});

test("a pending activity's last failure, with its attempt; none when no activity has failed", () => {
  const described = (pendingActivities: unknown[]) =>
    ({ raw: { pendingActivities } }) as unknown as WorkflowExecutionDescription;
  assert.equal(lastFailure(described([])), null);
  assert.equal(lastFailure(described([{ activityType: { name: 'dataops.waitForJob' }, attempt: 1 }])), null);
  assert.equal(
    lastFailure(
      described([
        { activityType: { name: 'dataops.waitForJob' }, attempt: 1 },
        {
          activityType: { name: 'dataops.sendInTurn' },
          attempt: 4,
          lastFailure: { message: 'POST /v2/login answered 503' },
        },
      ]),
    ),
    'dataops.sendInTurn attempt 4: POST /v2/login answered 503',
  );
});
