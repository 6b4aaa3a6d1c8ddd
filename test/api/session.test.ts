import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { inspect } from 'node:util';
import {
  AuthenticationFailed,
  FreshTokenRefused,
  RateLimited,
  ServerError,
  ServiceClient,
  SessionManager,
} from '../../src/api/index.js';
import { SEED_IDS, SEED_USERS } from '../../src/simulator/index.js';
import { clientFor, startTestSimulator } from '../helpers/sim.js';

const TS = SEED_IDS.testSuites;
const HOUR = 3_600_000;
const logins = (sim: { controls: { requests(): { path: string; status: number }[] } }) =>
  sim.controls.requests().filter((r) => r.path === '/v2/login');

describe('session: expiry and refresh', () => {
  test('a token expired on the service clock is replaced by one new login, and no call fails', async () => {
    const { sim } = await startTestSimulator();
    const client = await clientFor(sim);
    try {
      await client.testDefinitions.export(TS.salesProd);
      sim.controls.advanceClock(4 * HOUR + 1);
      const file = await client.testDefinitions.export(TS.salesProd);
      assert.equal(file.definitions.length, 8);
      assert.equal(logins(sim).length, 2);
      const statuses = sim.controls.requests().map((r) => r.status);
      assert.deepEqual(statuses, [200, 200, 401, 200, 200], 'login, call, refused once, login, repeated call');
    } finally {
      client.close();
      await sim.close();
    }
  });

  test('the token is refreshed before its 4-hour expiry, without waiting for a 401', async () => {
    const { sim } = await startTestSimulator();
    let now = Date.now();
    const client = await clientFor(sim, 'admin', { now: () => now, refreshMarginMs: 5 * 60_000 });
    try {
      await client.jobs.list('DEMO');
      now += 4 * HOUR - 5 * 60_000 + 1; // inside the margin
      await client.jobs.list('DEMO');
      assert.equal(logins(sim).length, 2);
      assert.ok(
        sim.controls.requests().every((r) => r.status !== 401),
        'no call was refused',
      );
    } finally {
      client.close();
      await sim.close();
    }
  });

  test('a 401 mid-session (revoked token) triggers one login and one repeat', async () => {
    const { sim } = await startTestSimulator();
    const client = await clientFor(sim);
    try {
      await client.jobs.list('DEMO');
      sim.controls.revokeTokens('alice');
      await client.jobs.list('DEMO');
      assert.equal(logins(sim).length, 2);
      sim.controls.revokeTokens('alice');
      sim.controls.addFault({ kind: 'status', status: 401, path: '/projects/DEMO/jobs', count: 2 });
      // The login that made the second token worked: the credentials are alive, so the call is retried, not given up.
      await assert.rejects(
        client.jobs.list('DEMO'),
        (e: Error) => e instanceof FreshTokenRefused && e.retryable && /granted for this call/.test(e.message),
      );
      assert.equal(logins(sim).length, 3, 'one refresh per call, never a loop');
    } finally {
      client.close();
      await sim.close();
    }
  });

  test('100 concurrent calls on an expired session cause exactly one login', async () => {
    const { sim } = await startTestSimulator();
    const client = await clientFor(sim, 'admin', { maxSockets: 100 });
    try {
      await client.jobs.list('DEMO');
      sim.controls.advanceClock(5 * HOUR);
      const results = await Promise.all(Array.from({ length: 100 }, () => client.jobs.list('DEMO', { limit: 1 })));
      assert.equal(results.length, 100);
      assert.ok(results.every((r) => r.limit === 1));
      assert.equal(logins(sim).length, 2, 'the first login and exactly one refresh');
    } finally {
      client.close();
      await sim.close();
    }
  });

  test('concurrent callers share one login in flight (SessionManager alone)', async () => {
    let calls = 0;
    const sessions = new SessionManager({
      login: async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 20));
        return `token-${calls}`;
      },
    });
    const tokens = await Promise.all(Array.from({ length: 50 }, () => sessions.token()));
    assert.equal(calls, 1);
    assert.ok(tokens.every((t) => t === 'token-1'));
    sessions.invalidate('token-0'); // a stale token does not drop the current one
    assert.equal(await sessions.token(), 'token-1');
    sessions.invalidate('token-1');
    assert.equal(await sessions.token(), 'token-2');
  });
});

describe('session: secrets stay secret', () => {
  test('the token and password never appear when the client or session is logged, stringified or inspected', async () => {
    const { sim } = await startTestSimulator();
    const client = await clientFor(sim);
    try {
      await client.login();
      const token = sim.controls.requests().length > 0 ? await client.session.token() : '';
      assert.ok(token.length > 10);
      for (const shown of [
        JSON.stringify(client),
        JSON.stringify(client.session),
        inspect(client, { depth: 10, showHidden: true }),
        inspect(client.session, { depth: 10, showHidden: true }),
        `${inspect(client)}`,
      ]) {
        assert.ok(!shown.includes(token), 'token leaked');
        assert.ok(!shown.includes(SEED_USERS.admin.password), 'password leaked');
      }
      sim.controls.addFault({ kind: 'status', status: 500, path: '/jobs' });
      const err = await client.jobs.list('DEMO').catch((e: unknown) => e as Error);
      const shown = `${inspect(err, { depth: 10 })} ${JSON.stringify(err)} ${(err as Error).message}`;
      assert.ok(!shown.includes(token) && !shown.includes(SEED_USERS.admin.password));
    } finally {
      client.close();
      await sim.close();
    }
  });
});

describe('the /api/v1 bearer from elsewhere', () => {
  test('a static token, a token file (re-read after a 401), or a callback (asked to refresh after a 401)', async () => {
    const { sim } = await startTestSimulator({ variants: { apiAuth: 'separate' } });
    try {
      const t1 = sim.controls.issueApiToken('alice');
      const fixed = new ServiceClient({ baseUrl: sim.url, apiBearer: { type: 'static', token: t1 } });
      assert.equal((await fixed.jobs.list('DEMO')).page, 1);

      const dir = mkdtempSync(join(tmpdir(), 'api-token-'));
      const file = join(dir, 'token');
      writeFileSync(file, `${t1}\n`);
      const fromFile = new ServiceClient({ baseUrl: sim.url, apiBearer: { type: 'file', path: file } });
      assert.equal((await fromFile.jobs.list('DEMO')).page, 1);
      sim.controls.revokeTokens('alice');
      writeFileSync(file, sim.controls.issueApiToken('alice')); // rotated by the deployment
      assert.equal((await fromFile.jobs.list('DEMO')).page, 1);

      const asked: boolean[] = [];
      let current = sim.controls.issueApiToken('alice');
      const viaCallback = new ServiceClient({
        baseUrl: sim.url,
        apiBearer: {
          type: 'callback',
          getToken: async ({ refresh }) => {
            asked.push(refresh);
            if (refresh) current = sim.controls.issueApiToken('alice');
            return current;
          },
        },
      });
      await viaCallback.jobs.list('DEMO');
      sim.controls.revokeTokens('alice');
      await viaCallback.jobs.list('DEMO');
      assert.deepEqual(asked, [false, false, true]);

      // /v2 calls still use the session from /v2/login
      const both = new ServiceClient({
        baseUrl: sim.url,
        credentials: { ...SEED_USERS.admin },
        apiBearer: { type: 'static', token: current },
      });
      assert.equal(
        (await both.orders.create({ kitchen: 'staging', recipe: 'load-warehouse', variation: 'daily' })).status,
        'success',
      );
      assert.equal((await both.jobs.list('DEMO')).page, 1);
      for (const c of [fixed, fromFile, viaCallback, both]) c.close();
    } finally {
      await sim.close();
    }
  });
});

describe('session: an outage at login is not a credentials problem', () => {
  test('503 and 429 on login stay retryable, marked as token failures; only a refusal is AuthenticationFailed', async () => {
    const { sim } = await startTestSimulator();
    try {
      sim.controls.addFault({ kind: 'status', status: 503, method: 'POST', path: '/v2/login' });
      const outage = await (await clientFor(sim)).login().catch((e: unknown) => e);
      assert.ok(outage instanceof ServerError, String(outage));
      assert.equal(outage.retryable, true);
      assert.equal(outage.auth, true, 'failed while getting a token: the call itself was never sent');
      sim.controls.addFault({ kind: 'rate_limit', method: 'POST', path: '/v2/login', retry_after: 7 });
      const limited = await (await clientFor(sim)).login().catch((e: unknown) => e);
      assert.ok(limited instanceof RateLimited, String(limited));
      assert.equal(limited.retryAfterMs, 7_000);
      const refused = await new ServiceClient({
        baseUrl: sim.url,
        credentials: { username: SEED_USERS.admin.username, password: 'wrong-password' },
      })
        .login()
        .catch((e: unknown) => e);
      assert.ok(refused instanceof AuthenticationFailed, String(refused));
      assert.equal(refused.retryable, false);
    } finally {
      await sim.close();
    }
  });

  test("the shared login does not run under the first caller's signal: one caller giving up fails no other", async () => {
    const { sim } = await startTestSimulator();
    const client = await clientFor(sim);
    try {
      sim.controls.addFault({ kind: 'delay', method: 'POST', path: '/v2/login', delay_ms: 300 });
      const first = new AbortController();
      const abandoned = client.jobs.list('DEMO', {}, { signal: first.signal });
      const patient = client.jobs.list('DEMO');
      first.abort();
      await assert.rejects(abandoned);
      const list = await patient;
      assert.ok(Array.isArray(list.items), 'the other caller got its answer');
      assert.equal(logins(sim).filter((r) => r.status === 200).length, 1, 'one login, finished for the others');
    } finally {
      client.close();
      await sim.close();
    }
  });
});
