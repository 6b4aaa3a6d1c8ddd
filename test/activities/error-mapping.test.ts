import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ActivityFailure, ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { createActivities, toFailure } from '../../src/activities/index.js';
import { RateLimited, ServiceClient } from '../../src/api/index.js';
import { NON_RETRYABLE, RETRYABLE } from '../../src/contract/activity-options.js';
import { SEED_IDS, SEED_USERS, type RunningSimulator } from '../../src/simulator/index.js';
import { harnessPath, runActivity, simDeps } from '../helpers/activities.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startTimeSkippingEnv, withWorker, type TestEnv } from '../helpers/temporal.js';

const TS = SEED_IDS.testSuites;
const ONCE = { startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 1 } } as const;
const RETRYING = {
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3, initialInterval: '10 ms', nonRetryableErrorTypes: [...NON_RETRYABLE] },
};

async function failure(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await p.then(
    (v) => assert.fail(`expected a failure, got ${JSON.stringify(v)}`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof WorkflowFailedError, `WorkflowFailedError, got ${String(err)}`);
  assert.ok(err.cause instanceof ActivityFailure, 'caused by an ActivityFailure');
  assert.ok(err.cause.cause instanceof ApplicationFailure, 'caused by an ApplicationFailure');
  return err.cause.cause;
}

describe('activity error mapping on a real worker', () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  before(async () => {
    t = await startTimeSkippingEnv();
    ({ sim } = await startTestSimulator({ jobDurations: { pendingMs: 0, claimMs: 0, runMs: 0, cancelMs: 0 } }));
  });
  after(async () => {
    await sim?.close();
    await t?.env.teardown();
  });

  const expectType = async (p: Promise<unknown>, type: string, nonRetryable: boolean) => {
    const f = await failure(p);
    assert.equal(f.type, type, f.message);
    assert.equal(f.nonRetryable, nonRetryable, `${type} nonRetryable`);
    assert.ok(!f.message.includes(SEED_USERS.admin.password));
    return f;
  };

  test('the documented failure types: every service error class is listed as retryable or not', () => {
    for (const name of [
      'AuthenticationFailed',
      'PermissionDenied',
      'NotFound',
      'Conflict',
      'InvalidRequest',
      'StrictImportRejected',
      'UnexpectedResponse',
    ])
      assert.ok((NON_RETRYABLE as readonly string[]).includes(name), name);
    for (const name of ['ServerError', 'RateLimited', 'ConnectionFailed', 'RequestTimedOut', 'FreshTokenRefused'])
      assert.ok((RETRYABLE as readonly string[]).includes(name), name);
  });

  test('non-retryable: AuthenticationFailed (bad credentials); retryable: a 401 to the token just granted', async () => {
    const bad = new ServiceClient({ baseUrl: sim.url, credentials: { username: 'alice', password: 'wrong' } });
    await expectType(
      runActivity(t.env, { profiles: { default: { client: bad } } }, 'login', {}, RETRYING),
      'AuthenticationFailed',
      true,
    );
    // Refused twice: the token held, then the one the login just granted. The login works, so the credentials are
    // alive: the attempt fails FreshTokenRefused, and the next attempt goes through on that token.
    const deps = await simDeps(sim);
    sim.controls.addFault({ kind: 'status', status: 401, path: '/projects/DEMO/jobs', count: 2 });
    const found = await runActivity(
      t.env,
      deps,
      'findGenerationJob',
      { tableGroupId: 'x', after: new Date().toISOString() },
      RETRYING,
    );
    assert.equal(found, null);
    assert.equal(
      sim.controls.faults().find((f) => f.path === '/projects/DEMO/jobs')?.remaining,
      0,
      'one refresh per attempt, no more',
    );
    sim.controls.addFault({ kind: 'status', status: 401, path: '/projects/DEMO/jobs', count: 6 });
    await expectType(
      runActivity(t.env, deps, 'findGenerationJob', { tableGroupId: 'x', after: new Date().toISOString() }, RETRYING),
      'FreshTokenRefused',
      false,
    );
  });

  test('non-retryable: PermissionDenied, NotFound, InvalidRequest (417 and 422), Conflict', async () => {
    await expectType(
      runActivity(
        t.env,
        await simDeps(sim, { user: 'operator' }),
        'runOrder',
        { kitchen: 'production', recipe: 'load-warehouse', variation: 'daily' },
        RETRYING,
      ),
      'PermissionDenied',
      true,
    );
    const deps = await simDeps(sim);
    await expectType(
      runActivity(t.env, deps, 'getJob', { jobId: 'a1000000-0000-4000-8000-0000000000ff' }, RETRYING),
      'NotFound',
      true,
    );
    const f = await expectType(
      runActivity(t.env, deps, 'runOrder', { kitchen: 'nowhere', recipe: 'r', variation: 'v' }, RETRYING),
      'InvalidRequest',
      true,
    );
    assert.deepEqual(f.details?.[0], { status: 417, code: null, method: 'PUT', url: '/v2/order/create/nowhere/r/v' });
    await expectType(runActivity(t.env, deps, 'getJob', { jobId: 'not-a-uuid' }, RETRYING), 'InvalidRequest', true);
    sim.controls.addFault({
      kind: 'respond',
      status: 409,
      path: '/api/v1/jobs/',
      body: { detail: { errors: [{ code: 'busy', detail: 'x' }] } },
    });
    await expectType(
      runActivity(t.env, deps, 'getJob', { jobId: 'a1000000-0000-4000-8000-0000000000fe' }, RETRYING),
      'Conflict',
      true,
    );
  });

  test('non-retryable: StrictImportRejected carries the would-be import result', async () => {
    const deps = await simDeps(sim);
    const exported = (await runActivity(t.env, deps, 'exportTestDefinitions', { testSuiteId: TS.salesDev }, ONCE)) as {
      file: unknown;
    };
    const f = await expectType(
      runActivity(
        t.env,
        deps,
        'importTestDefinitions',
        {
          testSuiteId: TS.salesProd,
          config: { mode: 'apply_strict', on_match: 'overwrite_unlocked', on_new: 'create', on_absence: 'do_nothing' },
          file: exported.file,
        },
        RETRYING,
      ),
      'StrictImportRejected',
      true,
    );
    const details = f.details?.[0] as { importResult: { summary: unknown; counts: Record<string, number> } };
    assert.deepEqual(details.importResult.summary, { created: 3, updated: 3, skipped: 3, deleted: 0 });
    assert.deepEqual(details.importResult.counts, {
      'create/no_match': 3,
      'update/matched': 3,
      'skip/locked': 2,
      'skip/invalid_table': 1,
    });
  });

  test('non-retryable: UnexpectedResponse names the field; InvalidInput lists every problem; UnknownProfile', async () => {
    const deps = await simDeps(sim);
    sim.controls.addFault({
      kind: 'respond',
      status: 200,
      path: '/api/v1/jobs/',
      body: { id: 'x', job_key: 'run-tests', created_at: 'now' },
    });
    const f = await expectType(
      runActivity(t.env, deps, 'getJob', { jobId: 'a1000000-0000-4000-8000-0000000000fd' }, RETRYING),
      'UnexpectedResponse',
      true,
    );
    assert.match(f.message, /'status': Invalid input/);
    const bad = await expectType(
      runActivity(t.env, deps, 'waitForJob', { jobId: '', pollIntervalMs: 1 }, RETRYING),
      'InvalidInput',
      true,
    );
    assert.deepEqual(
      (bad.details?.[0] as { problems: string[] }).problems.map((p) => p.split(':')[0]),
      ['jobId', 'pollIntervalMs'],
    );
    await expectType(
      runActivity(t.env, deps, 'getJob', { profile: 'finance-team', jobId: 'x' }, RETRYING),
      'UnknownProfile',
      true,
    );
  });

  test('retryable: ServerError, ConnectionFailed, RequestTimedOut are retried and then succeed', async () => {
    const deps = await simDeps(sim);
    const { jobId } = (await runActivity(t.env, deps, 'submitTestRun', { targetId: TS.financeProd }, ONCE)) as {
      jobId: string;
    };
    const path = `/api/v1/jobs/${jobId}`;
    const gets = () => sim.controls.requests().filter((r) => r.path === path).length;
    for (const fault of [{ kind: 'status', status: 502 }, { kind: 'reset' }] as const) {
      const before = gets();
      sim.controls.addFault({ ...fault, path });
      const job = (await runActivity(t.env, deps, 'getJob', { jobId }, RETRYING)) as { id: string };
      assert.equal(job.id, jobId);
      assert.equal(gets() - before, 2, `${fault.kind}: failed once, retried once`);
    }
    const impatient = await simDeps(sim);
    const quick = new ServiceClient({ baseUrl: sim.url, credentials: { ...SEED_USERS.admin }, timeoutMs: 200 });
    impatient.profiles.default = { client: quick, projectCode: 'DEMO' };
    sim.controls.addFault({ kind: 'delay', delay_ms: 1_000, path });
    const once = await expectType(runActivity(t.env, impatient, 'getJob', { jobId }, ONCE), 'RequestTimedOut', false);
    assert.equal(once.nonRetryable, false);
    sim.controls.addFault({ kind: 'delay', delay_ms: 1_000, path });
    assert.equal(((await runActivity(t.env, impatient, 'getJob', { jobId }, RETRYING)) as { id: string }).id, jobId);
    for (const [fault, type] of [
      [{ kind: 'status', status: 503 }, 'ServerError'],
      [{ kind: 'reset' }, 'ConnectionFailed'],
    ] as const) {
      sim.controls.addFault({ ...fault, path });
      await expectType(runActivity(t.env, deps, 'getJob', { jobId }, ONCE), type, false);
    }
  });

  test('retryable: RateLimited, with nextRetryDelay taken from Retry-After', async () => {
    const deps = await simDeps(sim);
    sim.controls.addFault({ kind: 'rate_limit', retry_after: 7, path: '/test-definition-export' });
    await expectType(
      runActivity(t.env, deps, 'exportTestDefinitions', { testSuiteId: TS.salesProd }, ONCE),
      'RateLimited',
      false,
    );
    assert.equal(
      (toFailure(new RateLimited('x', { method: 'GET', url: '/' }, 7_000)) as ApplicationFailure).nextRetryDelay,
      7_000,
    );
    // The retry waits the Retry-After delay (7 s), not the policy's 10 ms: measured on the workflow clock.
    sim.controls.addFault({ kind: 'rate_limit', retry_after: 7, path: '/test-definition-export' });
    const timed = (await withWorker(
      t.env,
      { workflowsPath: harnessPath, activities: createActivities(deps) },
      (taskQueue) =>
        t.env.client.workflow.execute('timeActivity', {
          taskQueue,
          workflowId: `rl-${taskQueue}`,
          args: ['dataops.exportTestDefinitions', { testSuiteId: TS.salesProd }, RETRYING],
        }),
    )) as { result: { definitions: number }; workflowMs: number };
    assert.equal(timed.result.definitions, 8);
    assert.ok(
      timed.workflowMs >= 7_000,
      `retried after ${timed.workflowMs} ms of workflow time, expected at least 7000`,
    );
  });

  test('orders: a lost answer is found through the listing, or is OrderOutcomeUnknown without one; a refusal is retried', async () => {
    const deps = await simDeps(sim);
    const order = { kitchen: 'production', recipe: 'refresh-marts', variation: 'full' };
    const before = sim.controls.orders().length;
    sim.controls.addFault({ kind: 'drop_after_commit', path: '/v2/order/create' });
    const found = (await runActivity(t.env, deps, 'runOrder', order, RETRYING)) as {
      orderId: string;
      reconciled: boolean;
    };
    assert.equal(found.reconciled, true);
    assert.equal(sim.controls.orders().length, before + 1, 'exactly one order, not two');
    assert.ok(sim.controls.orders().some((o) => o.id === found.orderId));
    // A deployment without the order listing: the order still runs, but a lost answer cannot be reconciled.
    sim.controls.addFault({ kind: 'respond', status: 404, body: { detail: 'no route' }, path: '/v2/order/status/' });
    sim.controls.addFault({ kind: 'drop_after_commit', path: '/v2/order/create' });
    const f = await expectType(runActivity(t.env, deps, 'runOrder', order, RETRYING), 'OrderOutcomeUnknown', true);
    assert.match(f.message, /may have been created .*no order listing/);
    assert.equal(sim.controls.orders().length, before + 2, 'one more order, and no second one');
    sim.controls.addFault({ kind: 'rate_limit', retry_after: 1, path: '/v2/order/create' });
    const ok = (await runActivity(
      t.env,
      deps,
      'runOrder',
      { ...order, parameters: { image_tag: 'v2' } },
      RETRYING,
    )) as {
      orderId: string;
      variableOverrides: unknown;
    };
    assert.deepEqual(ok.variableOverrides, { image_tag: 'v2' });
    assert.equal(sim.controls.orders().length, before + 3);
  });
});
