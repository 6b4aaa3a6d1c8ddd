/**
 * Which submitter a run waits on, by its stage and start input (`status`'s `retrying` line asks it): the same ids the
 * workflows start their submitters under, and none at a stage that submits nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { lastFailure, submitterFor } from '../../src/cli/retrying.js';
import { deploymentOf, deploymentsOf } from '../../src/exactly-once/messages.js';

const pipeline = {
  profile: 'ops',
  tableGroupId: 'tg-1',
  testSuiteId: 'ts-1',
  order: { kitchen: 'production', recipe: 'load', variation: 'daily', parameters: {} },
};

const at = deploymentsOf('https://dq.example.com:8443/', 'https://user:secret@api.example.com/base/?x=1');

test("each submitting stage names its kind's submitter, by the deployment the worker writes to; an order's is its kitchen, recipe and variation", async () => {
  assert.equal(
    await submitterFor('q', at, 'submitting profiling', async () => pipeline),
    'dataops-submit/q/api.example.com/base/profiling/tg-1',
    'a job by the /api/v1 base, with no user, password or query in it',
  );
  assert.equal(
    await submitterFor('q', at, 'submitting test_run', async () => pipeline),
    'dataops-submit/q/api.example.com/base/tests/ts-1',
  );
  assert.equal(
    await submitterFor('q', at, 'submitting generation', async () => pipeline),
    'dataops-submit/q/api.example.com/base/generation/ts-1',
  );
  assert.equal(
    await submitterFor('q', at, 'running order', async () => pipeline),
    'dataops-order/q/dq.example.com:8443/production/load/daily',
    'an order by the base URL',
  );
  // runOrder's input is the order itself; the profile names no submitter (every profile of a deployment takes turns).
  const order = { kitchen: 'k', recipe: 'r', variation: 'v' };
  assert.equal(
    await submitterFor('q', at, 'running order', async () => order),
    'dataops-order/q/dq.example.com:8443/k/r/v',
  );
  assert.equal(
    await submitterFor('q', at, 'submitting profiling', async () => ({ profile: 'other', tableGroupId: 'tg-2' })),
    'dataops-submit/q/api.example.com/base/profiling/tg-2',
  );
});

test('a deployment is its host, port and path, lower-cased host, whatever the scheme, user or trailing slash', () => {
  assert.equal(deploymentOf('HTTP://User:Pw@Host.Example.com:80/Api/'), 'host.example.com:80/Api');
  assert.equal(deploymentOf('https://host.example.com'), 'host.example.com');
  assert.deepEqual(deploymentsOf('http://127.0.0.1:8700'), { jobs: '127.0.0.1:8700', orders: '127.0.0.1:8700' });
});

test('a stage that submits nothing, an unknown role, or no input names no submitter', async () => {
  for (const stage of ['waiting for profiling', 'applying quality gates', 'submitting lunch'])
    assert.equal(await submitterFor('q', at, stage, async () => pipeline), null, stage);
  // The input (a history read) is read only at a stage that has a submitter.
  const unread = async () => assert.fail('the input was read');
  assert.equal(await submitterFor('q', at, 'applying quality gates', unread), null);
  assert.equal(await submitterFor('q', at, 'submitting profiling', async () => undefined), null);
  assert.equal(
    await submitterFor('q', at, 'running order', async () => ({ tableGroupId: 'tg-1' })),
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
