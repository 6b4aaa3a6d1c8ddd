import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BearerSource } from '../../src/api/bearer.js';
import { SessionManager } from '../../src/api/session.js';
import type { Transport } from '../../src/api/transport.js';
import { AuthenticationFailed, FreshTokenRefused, ServiceClient } from '../../src/api/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { startTestSimulator } from '../helpers/sim.js';

/** A token endpoint that issues a0, a1, … and counts its refreshes. */
function endpoint() {
  let issued = 0;
  const transport = {
    send: async () => {
      await new Promise((r) => setTimeout(r, 20));
      return { status: 200, text: JSON.stringify({ access_token: `a${issued++}`, expires_in: 3600 }), headers: {} };
    },
  } as unknown as Transport;
  return { transport, issued: () => issued };
}

describe('OAuth token source', () => {
  test('callers refused with the same stale token cause one refresh, not one each', async () => {
    const { transport, issued } = endpoint();
    const bearer = new BearerSource(
      new SessionManager({ login: async () => 'unused' }),
      { type: 'oauth', tokenUrl: 'http://t/oauth/token', clientId: 'c', refreshToken: 'r' },
      transport,
    );
    const stale = await bearer.token('api', false);
    assert.equal(stale, 'a0');
    // Two calls got a 401 with the same token; each does what the client does: invalidate it, ask again.
    bearer.invalidate('api', stale);
    const first = await bearer.token('api', true);
    bearer.invalidate('api', stale); // names the old token: the new one stays
    const second = await bearer.token('api', true);
    assert.deepEqual([first, second], ['a1', 'a1'], 'a second refresh would revoke the token the first caller holds');
    assert.equal(issued(), 2, 'one refresh at start, one after the 401s');
    assert.equal(bearer.oauth?.refreshes, 2);
  });
});

describe('OAuth refresh grant against the simulator (no /v2 credentials at all)', () => {
  test('an access token that expires mid-use is refreshed once, and no call fails', async () => {
    const { sim } = await startTestSimulator();
    const refreshToken = sim.controls.issueRefreshToken({ username: 'otto', clientId: 'worker' });
    const client = new ServiceClient({
      baseUrl: sim.url,
      timeoutMs: 5_000,
      apiBearer: { type: 'oauth', tokenUrl: `${sim.url}/oauth/token`, clientId: 'worker', refreshToken },
    });
    try {
      assert.equal((await client.testDefinitions.export(SEED_IDS.testSuites.salesProd)).definitions.length, 8);
      sim.controls.expireTokens('otto');
      await client.jobs.list('DEMO');
      assert.equal(client.oauthTokenSource?.refreshes, 2, 'one grant at start, one after the expiry');
      const paths = sim.controls.requests().map((r) => `${r.status} ${r.path.split('?')[0]}`);
      assert.equal(paths.filter((p) => p.includes('/v2/')).length, 0, 'never a /v2 login');
      assert.deepEqual(paths.slice(-3), [
        '401 /api/v1/projects/DEMO/jobs',
        '200 /oauth/token',
        '200 /api/v1/projects/DEMO/jobs',
      ]);
      assert.ok(!JSON.stringify(sim.controls.requests()).includes(refreshToken), 'no refresh token in the request log');
    } finally {
      client.close();
      await sim.close();
    }
  });

  test('a revoked refresh token fails the call as AuthenticationFailed, without echoing the token', async () => {
    const { sim } = await startTestSimulator();
    const refreshToken = sim.controls.issueRefreshToken({ username: 'otto', clientId: 'worker' });
    const client = new ServiceClient({
      baseUrl: sim.url,
      timeoutMs: 5_000,
      apiBearer: { type: 'oauth', tokenUrl: `${sim.url}/oauth/token`, clientId: 'worker', refreshToken },
    });
    try {
      await client.jobs.list('DEMO');
      sim.controls.revokeTokens('otto'); // access and refresh tokens, as a user revoking the app's access
      const err = await client.jobs.list('DEMO').then(
        () => assert.fail('expected a failure'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof AuthenticationFailed, String(err));
      assert.ok(!String((err as Error).message).includes(refreshToken));
    } finally {
      client.close();
      await sim.close();
    }
  });
  test('a 401 to the token just granted is retryable: the grant worked, so the credentials are alive', async () => {
    const { sim } = await startTestSimulator();
    const refreshToken = sim.controls.issueRefreshToken({ username: 'otto', clientId: 'worker', clientSecret: 's' });
    const client = new ServiceClient({
      baseUrl: sim.url,
      timeoutMs: 5_000,
      apiBearer: {
        type: 'oauth',
        tokenUrl: `${sim.url}/oauth/token`,
        clientId: 'worker',
        clientSecret: 's',
        refreshToken,
      },
    });
    try {
      // Refused twice: the token held, then the one granted for the call (it expired on its way, say).
      sim.controls.addFault({ kind: 'status', status: 401, path: '/projects/DEMO/jobs', count: 2 });
      const err = await client.jobs.list('DEMO').then(
        () => assert.fail('expected a failure'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof FreshTokenRefused && err.retryable, String(err));
      assert.equal(err.status, 401);
      // The retry an activity makes goes through, on the token already granted.
      assert.ok(Array.isArray((await client.jobs.list('DEMO')).items));
      const grants = sim.controls.requests().filter((r) => r.path === '/oauth/token');
      assert.deepEqual(
        grants.map((r) => r.status),
        [200, 200],
        'one grant at the first call, one after the first 401',
      );
    } finally {
      client.close();
      await sim.close();
    }
  });
});
