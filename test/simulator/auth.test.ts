import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SEED_IDS, SEED_USERS, type RunningSimulator } from '../../src/simulator/index.js';
import { startTestSimulator, type SimHttp } from '../helpers/sim.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const HOUR = 3_600_000;

describe('simulator login and tokens', () => {
  let sim: RunningSimulator;
  let http: SimHttp;
  before(async () => {
    ({ sim, http } = await startTestSimulator({ manualClock: true }));
  });
  after(async () => sim?.close());

  test('login is form-encoded and answers the token as plain text', async () => {
    const res = await http.request('POST', '/v2/login', { form: { ...SEED_USERS.admin } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(res.text, /^[A-Za-z0-9_-]{20,}$/);
    assert.equal((await http.request('GET', '/v2/validatetoken', { token: res.text })).status, 200);
  });

  test('a failed login is 401 with a clear body; a JSON login is 422', async () => {
    const res = await http.request('POST', '/v2/login', { form: { username: 'alice', password: 'wrong' } });
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, { detail: 'Invalid username or password' });
    assert.equal(
      (await http.request('POST', '/v2/login', { form: { username: 'nobody', password: 'x' } })).status,
      401,
    );
    const json = await http.request('POST', '/v2/login', { json: SEED_USERS.admin });
    assert.equal(json.status, 422);
    assert.deepEqual(
      json.body.detail.map((d: { loc: string[] }) => d.loc.join('.')),
      ['body.username', 'body.password'],
    );
  });

  test('a missing, unknown, expired or revoked token is 401 with WWW-Authenticate', async () => {
    const path = `/api/v1/test-suites/${TS.salesProd}/test-definition-export`;
    const missing = await http.request('GET', path);
    assert.equal(missing.status, 401);
    assert.deepEqual(missing.body, { detail: 'Not authenticated' });
    assert.equal(missing.headers.get('www-authenticate'), 'Bearer');
    const unknown = await http.request('GET', path, { token: 'not-a-token' });
    assert.deepEqual([unknown.status, unknown.body], [401, { detail: 'Invalid or expired token' }]);

    const token = await http.login('operator');
    assert.equal((await http.request('GET', path, { token })).status, 200);
    sim.controls.revokeTokens('otto');
    assert.equal((await http.request('GET', path, { token })).status, 401);
    assert.equal((await http.request('PUT', '/v2/order/create/staging/load-warehouse/daily', { token })).status, 401);
  });

  test('a session token expires 4 hours after it is issued', async () => {
    const token = await http.login('admin');
    const path = `/api/v1/jobs/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`;
    sim.controls.advanceClock(4 * HOUR - 1);
    assert.equal((await http.request('GET', path, { token })).status, 404, 'still valid 1 ms before expiry');
    sim.controls.advanceClock(1);
    const res = await http.request('GET', path, { token });
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, { detail: 'Invalid or expired token' });
  });

  test('the expire control ends tokens at once; the lifetime is configurable', async () => {
    const short = await startTestSimulator({ tokenLifetimeMs: 60_000, manualClock: true });
    try {
      const token = await short.http.login('admin');
      assert.equal((await short.http.request('GET', '/v2/validatetoken', { token })).status, 200);
      short.sim.controls.advanceClock(60_000);
      assert.equal((await short.http.request('GET', '/v2/validatetoken', { token })).status, 401);
      const t2 = await short.http.login('admin');
      assert.equal(short.sim.controls.expireTokens('alice'), 2);
      assert.equal((await short.http.request('GET', '/v2/validatetoken', { token: t2 })).status, 401);
      assert.equal(short.sim.controls.counters().logins, 2);
    } finally {
      await short.sim.close();
    }
  });

  test('deployed variant: /api/v1 takes only its own bearer tokens, /v2 the session token', async () => {
    const v = await startTestSimulator({ variants: { apiAuth: 'separate' } });
    try {
      const session = await v.http.login('admin');
      const path = `/api/v1/test-suites/${TS.salesProd}/test-definition-export`;
      assert.equal((await v.http.request('GET', path, { token: session })).status, 401);
      const apiToken = v.sim.controls.issueApiToken('alice');
      assert.equal((await v.http.request('GET', path, { token: apiToken })).status, 200);
      assert.equal((await v.http.request('GET', '/v2/validatetoken', { token: apiToken })).status, 401);
    } finally {
      await v.sim.close();
    }
  });
});

describe('simulator access control', () => {
  let sim: RunningSimulator;
  let http: SimHttp;
  before(async () => {
    ({ sim, http } = await startTestSimulator());
  });
  after(async () => sim?.close());

  test('an order in a kitchen the user cannot reach is 403; a viewer cannot create orders', async () => {
    const res = await http.as('operator', 'PUT', '/v2/order/create/production/load-warehouse/daily');
    assert.equal(res.status, 403);
    assert.match(res.body.detail.errors[0].detail, /no access to kitchen 'production'/);
    assert.equal((await http.as('operator', 'PUT', '/v2/order/create/staging/load-warehouse/daily')).status, 200);
    assert.equal((await http.as('viewer', 'PUT', '/v2/order/create/staging/load-warehouse/daily')).status, 403);
  });

  test('objects outside the user project are 404, like missing ones', async () => {
    const own = await http.as('outsider', 'POST', `/api/v1/table-groups/${TG.other}/profiling-runs`);
    assert.equal(own.status, 202);
    const hidden = await http.as('outsider', 'POST', `/api/v1/table-groups/${TG.sales}/profiling-runs`);
    const missing = await http.as(
      'outsider',
      'POST',
      `/api/v1/table-groups/a1000000-0000-4000-8000-0000000000ff/profiling-runs`,
    );
    assert.equal(hidden.status, 404);
    assert.equal(missing.status, 404);
    assert.equal(hidden.body.detail.errors[0].code, missing.body.detail.errors[0].code);
    assert.equal(
      (await http.as('outsider', 'GET', `/api/v1/test-suites/${TS.salesProd}/test-definition-export`)).status,
      404,
    );
    assert.equal(
      (await http.as('admin', 'GET', `/api/v1/jobs/${own.body.id}`)).status,
      404,
      'admin of DEMO cannot see OTHER',
    );
    assert.equal((await http.as('outsider', 'GET', `/api/v1/projects/DEMO/jobs`)).status, 404);
    assert.equal(sim.controls.counters().submissions[TG.sales], undefined, 'the rejected submission created nothing');
  });

  test('a viewer reads but cannot submit or cancel', async () => {
    assert.equal((await http.as('viewer', 'POST', `/api/v1/test-suites/${TS.salesProd}/test-runs`)).status, 403);
    const job = await http.as('admin', 'POST', `/api/v1/test-suites/${TS.salesProd}/test-runs`);
    assert.equal((await http.as('viewer', 'GET', `/api/v1/jobs/${job.body.id}`)).status, 200);
    assert.equal((await http.as('viewer', 'POST', `/api/v1/jobs/${job.body.id}/cancel`)).status, 403);
    assert.equal(sim.controls.counters().cancels[job.body.id], undefined);
  });

  test('health needs no authentication', async () => {
    const res = await http.request('GET', '/api/v1/health');
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['edition', 'status', 'version']);
  });
});
