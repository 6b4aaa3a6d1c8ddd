/**
 * How long the worker's credentials last, said before they run out: a personal access token (a JWT) that expired is
 * refused at start; one that expires within 7 days is warned about (and measured by a gauge), as is an OAuth refresh
 * token kept in a file, by the file's age; `dataops auth` shows every profile's credential and exits 1 when one needs
 * renewing. The token itself is never printed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { MetricMeter } from '@temporalio/common';
import { tokenExpiresAt } from '../../src/api/token-expiry.js';
import { ConfigError } from '../../src/config/env.js';
import { loadWorkerConfig } from '../../src/config/worker.js';
import { credentialLifetimes, watchCredentialLifetimes } from '../../src/telemetry/credential-lifetime.js';
import { dist, runProcess } from '../helpers/processes.js';

const DAY = 24 * 3_600_000;
const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
/** A token shaped as TestGen's personal access tokens: a JWT whose `exp` is `inMs` from now. */
const jwt = (inMs: number) =>
  `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: 'alice', exp: Math.floor((Date.now() + inMs) / 1000) })}.c2ln`;
interface CredentialShown {
  credential: string;
  expiresAt: string | null;
  advice: string | null;
}
const base = { DATAOPS_BASE_URL: 'http://127.0.0.1:1', DATAOPS_PROJECT_CODE: 'DEMO' };

describe("the lifetime of the worker's credentials", () => {
  test("a JWT's exp is read; an opaque or broken token says nothing", () => {
    const exp = Math.floor((Date.now() + DAY) / 1000);
    assert.equal(tokenExpiresAt(`${part({ alg: 'none' })}.${part({ exp })}.x`), exp * 1000);
    assert.equal(tokenExpiresAt('opaque-token'), undefined);
    assert.equal(tokenExpiresAt('a.!!!.c'), undefined);
    assert.equal(tokenExpiresAt(`${part({})}.${part({ exp: 'soon' })}.x`), undefined);
  });

  test('an expired API token is refused at start, naming the variable and the date, not the token', () => {
    const token = jwt(-DAY);
    const err = (() => {
      try {
        loadWorkerConfig({ ...base, DATAOPS_API_TOKEN: token }, () => Buffer.from(''));
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    assert.ok(err instanceof ConfigError, String(err));
    assert.match(err.message, /DATAOPS_API_TOKEN: the token expired on \d{4}-\d\d-\d\dT/);
    assert.ok(!err.message.includes(token), 'the token is not echoed');
  });

  test('each profile says its credential; one expiring within 7 days gets advice', () => {
    const now = Date.now();
    const lifetimes = credentialLifetimes(
      {
        default: { apiBearer: { type: 'static', token: jwt(2 * DAY) } },
        later: { apiBearer: { type: 'static', token: jwt(30 * DAY) } },
        login: { credentials: { username: 'a', password: 'b' } },
        oauth: {
          apiBearer: {
            type: 'oauth',
            tokenUrl: 'http://x/t',
            clientId: 'c',
            clientSecret: 's',
            refreshToken: 'r',
            refreshTokenLifetimeMs: 30 * DAY,
          },
        },
      },
      now,
    );
    const by = Object.fromEntries(lifetimes.map((c) => [c.profile, c]));
    assert.match(by.default?.advice ?? '', /^expires in 4[78] h: issue a new personal access token$/);
    assert.equal(by.later?.advice, null);
    assert.deepEqual(by.login, { profile: 'login', credential: 'login', expiresAt: null, advice: null });
    assert.equal(by.oauth?.expiresAt, null);
    assert.match(by.oauth?.advice ?? '', /given inline, it does not say when it was issued \(it lasts 30 days/);
  });

  test('the worker warns from 7 days before, and the gauge says how long is left', () => {
    const set: [number, Record<string, string>][] = [];
    const meter = {
      createGauge: () => ({ set: (v: number, a: Record<string, string>) => set.push([v, a]) }),
    } as unknown as MetricMeter;
    const warnings: [string, Record<string, unknown>][] = [];
    const token = jwt(3 * DAY);
    const stop = watchCredentialLifetimes(
      {
        default: { apiBearer: { type: 'static', token } },
        ok: { apiBearer: { type: 'static', token: jwt(90 * DAY) } },
      },
      meter,
      (m, meta) => warnings.push([m, meta]),
    );
    stop();
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.match(warnings[0]![0], /^the API token of profile 'default' expires in 7[12] h/);
    assert.ok(!JSON.stringify(warnings).includes(token));
    assert.deepEqual(
      set.map(([v, a]) => [Math.round(v / 86_400), a.profile]),
      [
        [3, 'default'],
        [90, 'ok'],
      ],
    );
  });

  test("a refresh token kept in a file lasts the service's lifetime from the file's time; `auth status` warns near it", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'refresh-token-'));
    const file = join(dir, 'refresh-token');
    writeFileSync(file, 'opaque-refresh-token\n', { mode: 0o600 });
    const oauth = {
      ...base,
      DATAOPS_OAUTH_TOKEN_URL: 'http://127.0.0.1:1/oauth/token',
      DATAOPS_OAUTH_CLIENT_ID: 'worker',
      DATAOPS_OAUTH_CLIENT_SECRET: 'client-secret',
      DATAOPS_OAUTH_REFRESH_TOKEN_FILE: file,
    };
    const written = Date.now() - 25 * DAY; // authorized 25 days ago: 5 days left of TestGen's 30
    utimesSync(file, written / 1000, written / 1000);
    const status = await runProcess(process.execPath, [dist('starter.js'), 'auth', 'status', '--json'], oauth);
    assert.equal(status.code, 1, status.out);
    const [shown] = JSON.parse(status.out.slice(status.out.indexOf('['))) as CredentialShown[];
    assert.equal(shown?.credential, 'OAuth refresh token');
    // The file system keeps the time to its own precision: a millisecond either way.
    const expires = Date.parse(shown?.expiresAt ?? '');
    assert.ok(Math.abs(expires - (written + 30 * DAY)) <= 1, `${shown?.expiresAt} is 30 days after the file's time`);
    assert.match(
      shown?.advice ?? '',
      new RegExp(`^expires in 1(19|20) h: renew it with \`dataops auth login --out ${file}\``),
    );
    assert.ok(!status.out.includes('opaque-refresh-token') && !status.out.includes('client-secret'));
    // A deployment whose refresh tokens last longer says so; then the same file is fine.
    const longer = await runProcess(process.execPath, [dist('starter.js'), 'auth', 'status', '--json'], {
      ...oauth,
      DATAOPS_OAUTH_REFRESH_TOKEN_DAYS: '90',
    });
    assert.equal(longer.code, 0, longer.out);
    const bad = await runProcess(process.execPath, [dist('starter.js'), 'auth', 'status'], {
      ...oauth,
      DATAOPS_OAUTH_REFRESH_TOKEN_DAYS: 'a month',
    });
    assert.notEqual(bad.code, 0);
    assert.match(bad.out, /DATAOPS_OAUTH_REFRESH_TOKEN_DAYS: expected a whole number from 1 to 3650, got 'a month'/);
  });

  test('`dataops auth status` shows each profile and exits 1 when a token needs renewing, 0 otherwise', async () => {
    const soon = jwt(2 * DAY);
    const run = (token: string) =>
      runProcess(process.execPath, [dist('starter.js'), 'auth', 'status', '--json'], {
        ...base,
        DATAOPS_API_TOKEN: token,
      });
    const warned = await run(soon);
    assert.equal(warned.code, 1, warned.out);
    const shown = JSON.parse(warned.out.slice(warned.out.indexOf('['))) as { credential: string; advice: string }[];
    assert.equal(shown[0]?.credential, 'API token');
    assert.match(shown[0]?.advice ?? '', /^expires in/);
    assert.ok(!warned.out.includes(soon), 'the token is not printed');
    const fine = await run(jwt(60 * DAY));
    assert.equal(fine.code, 0, fine.out);
  });
});
