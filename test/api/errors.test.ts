import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { ServiceError } from '../../src/api/index.js';
import {
  AuthenticationFailed,
  Conflict,
  ConnectionFailed,
  InvalidRequest,
  NotFound,
  PermissionDenied,
  RateLimited,
  RequestAborted,
  RequestTimedOut,
  ServerError,
  ServiceClient,
  StrictImportRejected,
  GarbledResponse,
  UnexpectedResponse,
  parseRetryAfter,
} from '../../src/api/index.js';
import { SEED_IDS, SEED_USERS, type RunningSimulator } from '../../src/simulator/index.js';
import { clientFor, startTestSimulator } from '../helpers/sim.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const UPSERT = { on_match: 'overwrite_unlocked', on_new: 'create', on_absence: 'do_nothing' } as const;

function expectError<T extends ServiceError>(cls: abstract new (...a: never[]) => T, check?: (e: T) => void) {
  return (err: unknown) => {
    assert.ok(err instanceof cls, `expected ${cls.name}, got ${(err as Error)?.name}: ${(err as Error)?.message}`);
    assert.equal((err as Error).name, cls.name, 'the class name is the failure type');
    check?.(err);
    return true;
  };
}

describe('ServiceClient errors, each from a real response', () => {
  let sim: RunningSimulator;
  let client: ServiceClient;
  before(async () => {
    ({ sim } = await startTestSimulator({ jobDurations: { pendingMs: 0, claimMs: 0, runMs: 0, cancelMs: 0 } }));
    client = await clientFor(sim);
  });
  after(async () => {
    client?.close();
    await sim?.close();
  });

  test('a garbled login answer is GarbledResponse (retryable, before anything was sent); JSON is UnexpectedResponse', async () => {
    const fresh = await clientFor(sim);
    sim.controls.addFault({ kind: 'malformed_json', method: 'POST', path: '/v2/login' });
    await assert.rejects(
      fresh.login(),
      expectError(GarbledResponse, (e) => {
        assert.equal(e.retryable, true);
        assert.equal(e.auth, true, 'a token failure: no call was sent');
      }),
    );
    sim.controls.addFault({
      kind: 'respond',
      status: 200,
      body: { token: 'in-json' },
      method: 'POST',
      path: '/v2/login',
    });
    await assert.rejects(
      fresh.login(),
      expectError(UnexpectedResponse, (e) => assert.equal(e.retryable, false)),
    );
    assert.equal((await fresh.login()).username, SEED_USERS.admin.username, 'and then it logs in');
    fresh.close();
  });

  test('AuthenticationFailed: refused login, and a 401 that remains', async () => {
    const bad = new ServiceClient({
      baseUrl: sim.url,
      credentials: { username: 'alice', password: 'not-the-password' },
    });
    await assert.rejects(
      bad.login(),
      expectError(AuthenticationFailed, (e) => {
        assert.equal(e.status, 401);
        assert.match(e.message, /login as 'alice' refused: 401 Invalid username or password/);
        assert.ok(!e.message.includes('not-the-password'));
        assert.ok(!JSON.stringify(e).includes('not-the-password'));
      }),
    );
    const staticBearer = new ServiceClient({ baseUrl: sim.url, apiBearer: { type: 'static', token: 'revoked-token' } });
    await assert.rejects(
      staticBearer.jobs.list('DEMO'),
      expectError(AuthenticationFailed, (e) => assert.equal(e.status, 401)),
    );
  });

  test('PermissionDenied (403), NotFound (404), Conflict (409)', async () => {
    const operator = await clientFor(sim, 'operator');
    await assert.rejects(
      operator.orders.create({ kitchen: 'production', recipe: 'load-warehouse', variation: 'daily' }),
      expectError(PermissionDenied, (e) => {
        assert.equal(e.status, 403);
        assert.equal(e.method, 'PUT');
        assert.equal(e.url, '/v2/order/create/production/load-warehouse/daily');
      }),
    );
    const outsider = await clientFor(sim, 'outsider');
    await assert.rejects(
      outsider.profilingRuns.submit(TG.sales),
      expectError(NotFound, (e) => assert.equal(e.code, 'not_found')),
    );
    const { id } = await client.testRuns.submit(TS.salesProd);
    await assert.rejects(
      client.jobs.cancel(id),
      expectError(Conflict, (e) => assert.equal(e.code, 'invalid_status_transition')),
    );
  });

  test('InvalidRequest: 417 order failure, 422 bad input, 400 with a code', async () => {
    await assert.rejects(
      client.orders.create({ kitchen: 'nowhere', recipe: 'r', variation: 'v' }),
      expectError(InvalidRequest, (e) => {
        assert.equal(e.status, 417);
        assert.match(e.message, /Kitchen 'nowhere' does not exist/);
      }),
    );
    await assert.rejects(
      client.jobs.get('not-a-uuid'),
      expectError(InvalidRequest, (e) => {
        assert.equal(e.status, 422);
        assert.match(e.message, /path\.job_id: Input should be a valid UUID/);
      }),
    );
    const auto = {
      test_type: 'Unique',
      table_name: 'orders',
      column_name: 'id',
      last_auto_gen_date: '2026-01-01T00:00:00Z',
    };
    await assert.rejects(
      client.testDefinitions.import(TS.salesProd, { mode: 'apply', ...UPSERT }, { definitions: [auto, auto] }),
      expectError(InvalidRequest, (e) => assert.equal(e.code, 'duplicate_natural_key')),
    );
  });

  for (const shape of ['nested', 'top-level'] as const) {
    test(`StrictImportRejected carries the import_result (${shape} body)`, async () => {
      const v = await startTestSimulator({ variants: { strictErrorShape: shape } });
      const c = await clientFor(v.sim);
      try {
        const file = await c.testDefinitions.export(TS.salesDev);
        await assert.rejects(
          c.testDefinitions.import(TS.salesProd, { mode: 'apply_strict', ...UPSERT }, file),
          expectError(StrictImportRejected, (e) => {
            assert.equal(e.status, 400);
            assert.equal(e.code, 'strict_validation_failed');
            assert.deepEqual((e.importResult as { summary: unknown }).summary, {
              created: 3,
              updated: 3,
              skipped: 3,
              deleted: 0,
            });
          }),
        );
      } finally {
        c.close();
        await v.sim.close();
      }
    });
  }

  test('RateLimited carries retryAfterMs from seconds or an HTTP date', async () => {
    sim.controls.addFault({ kind: 'rate_limit', retry_after: 12, path: '/health' });
    await assert.rejects(
      client.health(),
      expectError(RateLimited, (e) => assert.equal(e.retryAfterMs, 12_000)),
    );
    const date = new Date(Date.now() + 60_000).toUTCString();
    sim.controls.addFault({ kind: 'rate_limit', retry_after: date, path: '/health' });
    await assert.rejects(
      client.health(),
      expectError(RateLimited, (e) =>
        assert.ok(e.retryAfterMs! > 50_000 && e.retryAfterMs! <= 60_000, String(e.retryAfterMs)),
      ),
    );
    assert.equal(parseRetryAfter('1.5'), 1500);
    assert.equal(parseRetryAfter('soon'), undefined);
    assert.equal(parseRetryAfter(undefined), undefined);
  });

  test('ServerError (5xx)', async () => {
    sim.controls.addFault({ kind: 'status', status: 503, path: '/api/v1/jobs/' });
    const { id } = await client.testRuns.submit(TS.salesProd);
    await assert.rejects(
      client.jobs.get(id),
      expectError(ServerError, (e) => assert.equal(e.retryable, true)),
    );
  });

  test('ConnectionFailed: a reset connection, and a refused one', async () => {
    sim.controls.addFault({ kind: 'reset', path: '/health' });
    await assert.rejects(
      client.health(),
      expectError(ConnectionFailed, (e) => assert.equal(e.status, undefined)),
    );
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const nowhere = new ServiceClient({ baseUrl: `http://127.0.0.1:${port}`, credentials: { ...SEED_USERS.admin } });
    await assert.rejects(
      nowhere.login(),
      expectError(ConnectionFailed, (e) => assert.equal(e.code, 'ECONNREFUSED')),
    );
  });

  test('RequestTimedOut is distinct from HTTP errors', async () => {
    const impatient = await clientFor(sim, 'admin', { timeoutMs: 150 });
    sim.controls.addFault({ kind: 'delay', delay_ms: 1_500, path: '/health' });
    await assert.rejects(
      impatient.health(),
      expectError(RequestTimedOut, (e) => assert.equal(e.status, undefined)),
    );
  });

  test('RequestAborted: an aborted request is really cancelled, its connection closed', async () => {
    sim.controls.addFault({ kind: 'delay', delay_ms: 1_000, path: '/test-definition-export' });
    const controller = new AbortController();
    const pending = client.testDefinitions.export(TS.salesProd, {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(pending, expectError(RequestAborted));
    // The server saw the client close the connection before it could answer.
    let entry;
    for (let i = 0; i < 100 && !entry; i++) {
      entry = sim.controls
        .requests()
        .findLast((r) => r.path.endsWith('/test-definition-export') && r.fault === 'delay');
      if (!entry) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(entry?.client_closed, true);
    await assert.rejects(client.health({ signal: AbortSignal.abort() }), expectError(RequestAborted));
  });

  test('GarbledResponse (retryable) for a body that is not JSON; UnexpectedResponse (not) for a schema break', async () => {
    const { id } = await client.testRuns.submit(TS.salesProd);
    sim.controls.addFault({ kind: 'malformed_json', path: `/jobs/${id}` });
    await assert.rejects(
      client.jobs.get(id),
      expectError(GarbledResponse, (e) => {
        assert.equal(e.retryable, true, 'a transport accident: asking again may get a whole answer');
        assert.match(e.message, /not valid JSON/);
      }),
    );
    sim.controls.addFault({
      kind: 'respond',
      status: 200,
      path: `/jobs/${id}`,
      body: { id, job_key: 'run-tests', status: 42, created_at: 'yesterday-ish' },
    });
    await assert.rejects(
      client.jobs.get(id),
      expectError(UnexpectedResponse, (e) => {
        assert.equal(e.retryable, false, 'the deployment answers something we do not understand');
        assert.deepEqual(
          e.issues.map((i) => i.path),
          ['status', 'created_at'],
        );
        assert.match(e.message, /'status': Invalid input: expected string, received number/);
        assert.match(e.message, /'created_at': expected an ISO 8601 timestamp/);
      }),
    );
    sim.controls.addFault({ kind: 'respond', status: 200, path: '/v2/order/create', body: { status: 'success' } });
    await assert.rejects(
      client.orders.create({ kitchen: 'production', recipe: 'refresh-marts', variation: 'full' }),
      expectError(UnexpectedResponse, (e) =>
        assert.match(e.message, /'order_id': expected one of order_id, serving_hid, serving_chronos_id/),
      ),
    );
  });

  test('an unknown status is not a schema break: it stays a string', async () => {
    const { id } = await client.testRuns.submit(TS.salesProd);
    sim.controls.addFault({ kind: 'unknown_status', unknown_status: 'archived_on_tape', path: `/jobs/${id}` });
    assert.equal((await client.jobs.get(id)).status, 'archived_on_tape');
  });
});
