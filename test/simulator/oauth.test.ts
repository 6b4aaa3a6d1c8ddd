import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { startTestSimulator, type SimHttp } from '../helpers/sim.js';

const HOUR = 3_600_000;
const exportPath = `/api/v1/test-suites/${SEED_IDS.testSuites.salesProd}/test-definition-export`;
const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
});

describe('simulator OAuth token endpoint (TestGen 5.134)', () => {
  let sim: RunningSimulator;
  let http: SimHttp;
  before(async () => {
    ({ sim, http } = await startTestSimulator({ manualClock: true }));
  });
  after(async () => sim?.close());

  const grant = (refresh: string, clientId = 'cli') =>
    http.request('POST', '/oauth/token', {
      form: { grant_type: 'refresh_token', refresh_token: refresh, client_id: clientId },
    });

  test('publishes its metadata', async () => {
    const res = await http.request('GET', '/.well-known/oauth-authorization-server');
    assert.equal(res.status, 200);
    assert.equal(res.body.token_endpoint, `${sim.url}/oauth/token`);
    assert.ok(res.body.grant_types_supported.includes('refresh_token'));
  });

  test('a refresh grant issues a 1-hour /api/v1 token, keeps the refresh token, and revokes the one before', async () => {
    const refresh = sim.controls.issueRefreshToken({ username: 'otto', clientId: 'cli' });
    const first = await grant(refresh);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('cache-control'), 'no-store');
    assert.equal(first.body.token_type, 'Bearer');
    assert.equal(first.body.expires_in, 3600);
    assert.equal(first.body.refresh_token, refresh, 'TestGen does not rotate refresh tokens');
    const a1 = first.body.access_token as string;
    assert.equal((await http.request('GET', exportPath, { token: a1 })).status, 200);
    assert.equal((await http.request('GET', '/v2/validatetoken', { token: a1 })).status, 401, 'not a /v2 session');

    const a2 = (await grant(refresh)).body.access_token as string;
    assert.notEqual(a2, a1);
    assert.equal((await http.request('GET', exportPath, { token: a1 })).status, 401, 'the earlier grant is revoked');
    assert.equal((await http.request('GET', exportPath, { token: a2 })).status, 200);

    sim.controls.advanceClock(HOUR);
    assert.equal((await http.request('GET', exportPath, { token: a2 })).status, 401, 'expired after an hour');
    assert.equal((await grant(refresh)).status, 200, 'the refresh token outlives its access tokens');
  });

  test('refusals use the OAuth error shape', async () => {
    const refresh = sim.controls.issueRefreshToken({ username: 'otto', clientId: 'cli' });
    const wrongClient = await grant(refresh, 'other');
    assert.deepEqual([wrongClient.status, wrongClient.body.error], [400, 'invalid_grant']);
    assert.deepEqual([(await grant('nope')).status, (await grant('nope')).body.error], [400, 'invalid_grant']);
    const noClient = await http.request('POST', '/oauth/token', {
      form: { grant_type: 'refresh_token', refresh_token: refresh },
    });
    assert.deepEqual([noClient.status, noClient.body.error], [401, 'invalid_client']);
    const password = await http.request('POST', '/oauth/token', {
      form: { grant_type: 'password', client_id: 'cli', username: 'otto', password: 'x' },
    });
    assert.deepEqual([password.status, password.body.error], [400, 'unsupported_grant_type']);
    const json = await http.request('POST', '/oauth/token', { json: { grant_type: 'refresh_token' } });
    assert.deepEqual([json.status, json.body.error], [400, 'invalid_request']);

    const expiring = sim.controls.issueRefreshToken({ username: 'otto', clientId: 'cli', lifetimeMs: HOUR });
    sim.controls.advanceClock(HOUR);
    assert.equal((await grant(expiring)).body.error, 'invalid_grant', 'an expired refresh token');
  });

  test('a confidential client authenticates with HTTP Basic; revoking a refresh token ends its grants', async () => {
    const refresh = sim.controls.issueRefreshToken({ username: 'otto', clientId: 'svc', clientSecret: 's3cret' });
    const form = { grant_type: 'refresh_token', refresh_token: refresh };
    const bad = await http.request('POST', '/oauth/token', { form, headers: basic('svc', 'wrong') });
    assert.deepEqual([bad.status, bad.body.error], [401, 'invalid_client']);
    assert.equal((await grant(refresh, 'svc')).body.error, 'invalid_client', 'no secret, no grant');
    const ok = await http.request('POST', '/oauth/token', { form, headers: basic('svc', 's3cret') });
    assert.equal(ok.status, 200);

    const revoked = await http.request('POST', '/oauth/revoke', {
      form: { token: refresh },
      headers: basic('svc', 's3cret'),
    });
    assert.equal(revoked.status, 200);
    const after = await http.request('POST', '/oauth/token', { form, headers: basic('svc', 's3cret') });
    assert.equal(after.body.error, 'invalid_grant');
  });
});
