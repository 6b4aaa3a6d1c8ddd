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

  /** A grant for a confidential client: HTTP Basic with its secret. */
  const grantAs = (refresh: string, clientId: string, secret: string) =>
    http.request('POST', '/oauth/token', {
      form: { grant_type: 'refresh_token', refresh_token: refresh },
      headers: basic(clientId, secret),
    });
  const works = async (token: string) => (await http.request('GET', exportPath, { token })).status === 200;

  test('a confidential client reuses its refresh token: workers sharing it never revoke each other', async () => {
    const refresh = sim.controls.issueRefreshToken({ username: 'otto', clientId: 'fleet', clientSecret: 'fleet-s' });
    const first = await grantAs(refresh, 'fleet', 'fleet-s');
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('cache-control'), 'no-store');
    assert.equal(first.body.token_type, 'Bearer');
    assert.equal(first.body.expires_in, 3600);
    assert.equal(first.body.refresh_token, undefined, 'no new refresh token: the client keeps its own');
    const a1 = first.body.access_token as string;
    assert.ok(await works(a1));
    assert.equal((await http.request('GET', '/v2/validatetoken', { token: a1 })).status, 401, 'not a /v2 session');
    // Three workers refresh with the same token: every access token stays valid.
    const others = await Promise.all([1, 2, 3].map(() => grantAs(refresh, 'fleet', 'fleet-s')));
    const tokens = [a1, ...others.map((r) => r.body.access_token as string)];
    assert.equal(new Set(tokens).size, 4);
    for (const token of tokens) assert.ok(await works(token), "no grant revoked another worker's token");
    sim.controls.advanceClock(HOUR);
    assert.equal(await works(a1), false, 'expired after an hour');
    assert.equal((await grantAs(refresh, 'fleet', 'fleet-s')).status, 200, 'the refresh token outlives them');
  });

  test('a public client gets a new refresh token at every grant; its chain ends when the first token would', async () => {
    const r1 = sim.controls.issueRefreshToken({ username: 'otto', clientId: 'app', lifetimeMs: 2 * HOUR });
    const g1 = await grant(r1, 'app');
    const r2 = g1.body.refresh_token as string;
    assert.ok(r2 && r2 !== r1, 'rotated');
    const g2 = await grant(r2, 'app');
    const r3 = g2.body.refresh_token as string;
    assert.equal(await works(g1.body.access_token as string), false, 'the access token issued with r2 is revoked');
    assert.ok(await works(g2.body.access_token as string));
    sim.controls.advanceClock(2 * HOUR);
    assert.equal((await grant(r3, 'app')).body.error, 'invalid_grant', 'rotation does not extend the chain');
  });

  test("a public client's replaced token presented again: refused within a minute, and later its whole chain is revoked", async () => {
    const r1 = sim.controls.issueRefreshToken({ username: 'otto', clientId: 'app2' });
    const g1 = await grant(r1, 'app2');
    const r2 = g1.body.refresh_token as string;
    // A second worker (or a restarted one) still holds r1, a moment later: refused, nothing else revoked.
    assert.equal((await grant(r1, 'app2')).body.error, 'invalid_grant');
    const g2 = await grant(r2, 'app2');
    const r3 = g2.body.refresh_token as string;
    const a3 = g2.body.access_token as string;
    assert.ok(await works(a3));
    // More than a minute after r1 was replaced: the chain may be stolen, so every live token of it goes.
    sim.controls.advanceClock(61_000);
    assert.equal((await grant(r1, 'app2')).body.error, 'invalid_grant');
    assert.equal(await works(a3), false, 'the live access token of the chain is revoked');
    assert.equal((await grant(r3, 'app2')).body.error, 'invalid_grant', 'so is its live refresh token');
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
