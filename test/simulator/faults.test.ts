import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SEED_IDS, SEED_USERS, startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { FROZEN, faultHits, startTestSimulator, type SimHttp } from '../helpers/sim.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;

describe('simulator faults and controls', () => {
  let sim: RunningSimulator;
  let http: SimHttp;
  before(async () => {
    ({ sim, http } = await startTestSimulator({ jobDurations: FROZEN }));
  });
  after(async () => sim?.close());

  const exportPath = `/api/v1/test-suites/${TS.salesProd}/test-definition-export`;

  test('status faults hit the next N matching requests only', async () => {
    sim.controls.addFault({ kind: 'status', status: 502, path: 'test-definition-export', count: 2 });
    assert.equal((await http.as('admin', 'GET', exportPath)).status, 502);
    assert.equal((await http.as('admin', 'GET', `/api/v1/projects/DEMO/jobs`)).status, 200, 'other paths unaffected');
    const second = await http.as('admin', 'GET', exportPath);
    assert.equal(second.status, 502);
    assert.equal(second.body.detail.errors[0].code, 'injected_fault');
    assert.equal((await http.as('admin', 'GET', exportPath)).status, 200);
  });

  test('skip lets the first matching requests through, then hits (the apply after its preview)', async () => {
    sim.controls.addFault({ kind: 'status', status: 503, path: 'test-definition-export', skip: 2 });
    assert.equal((await http.as('admin', 'GET', exportPath)).status, 200);
    assert.equal((await http.as('admin', 'GET', exportPath)).status, 200);
    assert.equal((await http.as('admin', 'GET', exportPath)).status, 503);
    assert.equal((await http.as('admin', 'GET', exportPath)).status, 200);
  });

  test('429 with Retry-After in seconds or as an HTTP date', async () => {
    sim.controls.addFault({ kind: 'rate_limit', retry_after: 7, method: 'GET', path: exportPath });
    const res = await http.as('admin', 'GET', exportPath);
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), '7');
    const date = 'Wed, 21 Oct 2026 07:28:00 GMT';
    sim.controls.addFault({ kind: 'rate_limit', retry_after: date, path: '^/api/v1/test-suites/' });
    assert.equal((await http.as('admin', 'GET', exportPath)).headers.get('retry-after'), date);
  });

  test('connection reset, and a delay past the client timeout', async () => {
    sim.controls.addFault({ kind: 'reset', path: '/health' });
    await assert.rejects(fetch(`${sim.url}/api/v1/health`), (err: Error & { cause?: { code?: string } }) => {
      assert.equal(err.cause?.code, 'UND_ERR_SOCKET');
      return true;
    });
    sim.controls.addFault({ kind: 'delay', delay_ms: 2_000, path: '/health' });
    await assert.rejects(fetch(`${sim.url}/api/v1/health`, { signal: AbortSignal.timeout(100) }), {
      name: 'TimeoutError',
    });
    assert.equal((await fetch(`${sim.url}/api/v1/health`)).status, 200);
  });

  test('a delay released before it ends: what it holds goes on then, and what it holds later at once', async () => {
    const hold = sim.controls.addFault({ kind: 'delay', delay_ms: 600_000, path: '/health', count: 2 });
    let answered = false;
    const held = fetch(`${sim.url}/api/v1/health`).then((res) => {
      answered = true;
      return res.status;
    });
    await eventually('the request held', () => faultHits(sim, hold) === 1);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(answered, false, 'held until released');
    sim.controls.releaseFault(hold.id);
    assert.equal(await held, 200);
    assert.equal((await fetch(`${sim.url}/api/v1/health`)).status, 200, 'its second hit is not held');
    assert.equal(faultHits(sim, hold), 2);
    assert.throws(() => sim.controls.releaseFault('no-such-fault'), /no-such-fault/);
  });

  test('a malformed JSON body', async () => {
    sim.controls.addFault({ kind: 'malformed_json', path: '/jobs/' });
    const job = await http.as('admin', 'POST', `/api/v1/test-suites/${TS.salesProd}/test-runs`);
    const res = await http.as('admin', 'GET', `/api/v1/jobs/${job.body.id}`);
    assert.equal(res.status, 200);
    assert.throws(() => JSON.parse(res.text) as unknown, SyntaxError);
  });

  test('an unknown status value, once', async () => {
    const job = await http.as('admin', 'POST', `/api/v1/test-suites/${TS.salesProd}/test-runs`);
    sim.controls.addFault({
      kind: 'unknown_status',
      unknown_status: 'paused_by_operator',
      path: `/jobs/${job.body.id}`,
    });
    assert.equal((await http.as('admin', 'GET', `/api/v1/jobs/${job.body.id}`)).body.status, 'paused_by_operator');
    assert.equal((await http.as('admin', 'GET', `/api/v1/jobs/${job.body.id}`)).body.status, 'pending');
  });

  test('a response dropped after the job was created: the job exists, the client never heard of it', async () => {
    const before = sim.controls.counters().submissions[TG.finance] ?? 0;
    sim.controls.addFault({ kind: 'drop_after_commit', method: 'POST', path: '/profiling-runs' });
    const token = await http.token();
    await assert.rejects(
      fetch(`${sim.url}/api/v1/table-groups/${TG.finance}/profiling-runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      }),
    );
    assert.equal(sim.controls.counters().submissions[TG.finance], before + 1);
    const listing = await http.as('admin', 'GET', '/api/v1/projects/DEMO/jobs?job_key=run-profile');
    const found = await http.as('admin', 'GET', `/api/v1/profiling-runs/${listing.body.items[0].id}`);
    assert.equal(found.body.table_group_id, TG.finance, 'found through the listing and the run record');
    const entry = sim.controls.requests().findLast((r) => r.path.endsWith('/profiling-runs'));
    assert.equal(entry?.fault, 'drop_after_commit');
  });

  test('the request log and counters never hold credentials', async () => {
    const token = await http.login('admin');
    await http.request('GET', exportPath, { token });
    const log = JSON.stringify(sim.controls.requests());
    assert.ok(!log.includes(token), 'no token in the request log');
    assert.ok(!log.includes(SEED_USERS.admin.password), 'no password in the request log');
    const entry = sim.controls.requests().findLast((r) => r.path === exportPath);
    assert.deepEqual([entry?.method, entry?.status, entry?.username], ['GET', 200, 'alice']);
  });

  test('controls over HTTP: clock, faults, durations, fail, interrupt, scheduler, tokens, counters', async () => {
    const post = (path: string, json: unknown = {}) => http.request('POST', path, { json });
    const clock = Date.parse((await http.request('GET', '/_sim/clock')).body.now);
    const advanced = Date.parse((await post('/_sim/clock/advance', { ms: 3_600_000 })).body.now);
    assert.ok(advanced - clock >= 3_600_000);
    assert.equal((await post('/_sim/faults', { kind: 'explode' })).status, 422);
    assert.equal((await post('/_sim/faults', { kind: 'status', status: 500, path: '/health', count: 1 })).status, 201);
    assert.equal((await http.request('GET', '/_sim/faults')).body.length >= 1, true);
    assert.equal((await http.request('GET', '/api/v1/health')).status, 500);
    const hold = (await post('/_sim/faults', { kind: 'delay', delay_ms: 600_000, path: '/health' })).body;
    const held = http.request('GET', '/api/v1/health');
    await eventually('the request held', () => faultHits(sim, hold) === 1);
    assert.equal((await post(`/_sim/faults/${hold.id}/release`)).status, 200);
    assert.equal((await held).status, 200);
    assert.equal((await post('/_sim/faults/no-such-fault/release')).status, 404);
    assert.equal((await http.request('DELETE', '/_sim/faults')).status, 200);

    const job = await http.as('admin', 'POST', `/api/v1/table-groups/${TG.finance}/profiling-runs`);
    assert.equal(
      (await http.request('PUT', `/_sim/jobs/${job.body.id}/durations`, { json: { pendingMs: 0, claimMs: 0 } })).status,
      200,
    );
    assert.equal(
      (await http.request('GET', '/_sim/jobs')).body.find((j: { id: string }) => j.id === job.body.id).status,
      'running',
    );
    assert.equal((await post(`/_sim/jobs/${job.body.id}/interrupt`)).body.status, 'interrupt_requested');
    await post('/_sim/clock/advance', { ms: FROZEN.interruptMs });
    assert.deepEqual((await post('/_sim/scheduler/restart')).body.resumed, [job.body.id]);
    const failed = await post(`/_sim/jobs/${job.body.id}/fail`, { error_message: 'disk full' });
    assert.equal(failed.body.status, 'error');
    assert.equal((await post(`/_sim/jobs/${job.body.id}/fail`, { error_message: 'again' })).status, 409);
    assert.equal((await post('/_sim/scheduler/shutdown')).status, 200);

    const token = await http.login('viewer');
    assert.equal((await post('/_sim/tokens/expire', { username: 'vera' })).body.expired >= 1, true);
    assert.equal((await http.request('GET', '/v2/validatetoken', { token })).status, 401);
    const t2 = await http.login('viewer');
    await post('/_sim/tokens/revoke', { username: 'vera' });
    assert.equal((await http.request('GET', '/v2/validatetoken', { token: t2 })).status, 401);

    assert.equal((await http.request('PUT', '/_sim/job-durations', { json: { bogus: 1 } })).status, 422);
    const counters = (await http.request('GET', '/_sim/counters')).body;
    assert.ok(counters.logins >= 3);
    assert.ok(counters.jobsByKey['run-profile'] >= 1);
    assert.ok(Array.isArray((await http.request('GET', '/_sim/requests')).body));
  });

  test('controls are off unless enabled', async () => {
    const plain = await startSimulator({});
    try {
      const res = await fetch(`${plain.url}/_sim/clock/advance`, {
        method: 'POST',
        body: '{"ms":1}',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 404);
    } finally {
      await plain.close();
    }
  });
});
