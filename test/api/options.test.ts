import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidClientOptions, NotFound, ServerError, ServiceClient } from '../../src/api/index.js';
import { SEED_IDS, SEED_USERS } from '../../src/simulator/index.js';
import { clientFor, startTestSimulator } from '../helpers/sim.js';

const TS = SEED_IDS.testSuites;

describe('ServiceClient options', () => {
  test('invalid options are refused with every problem listed', () => {
    assert.throws(
      () =>
        new ServiceClient({
          baseUrl: 'ftp://example.com',
          credentials: { username: '', password: 'x' },
          paths: { jobStatus: '/jobs/status' },
          timeoutMs: -1,
        }),
      (err: Error) => {
        assert.ok(err instanceof InvalidClientOptions);
        for (const key of ['baseUrl', 'credentials.username', 'paths.jobStatus', 'timeoutMs'])
          assert.match(err.message, new RegExp(key.replace('.', '\\.')));
        return true;
      },
    );
  });

  test('apiBaseUrl serves the /api/v1 calls, defaulting to baseUrl', async () => {
    const { sim } = await startTestSimulator({ apiBasePath: '/quality' });
    try {
      const split = await clientFor(sim, 'admin', { apiBaseUrl: `${sim.url}/quality` });
      assert.equal((await split.testDefinitions.export(TS.salesProd)).definitions.length, 8);
      const same = await clientFor(sim);
      await assert.rejects(same.testDefinitions.export(TS.salesProd), (e: Error) => e instanceof NotFound);
      split.close();
      same.close();
    } finally {
      await sim.close();
    }
  });

  test('the unshown paths (job status, cancel, listing) are configurable', async () => {
    const { sim } = await startTestSimulator({ apiBasePath: '/v9' });
    try {
      const custom = await clientFor(sim, 'admin', {
        apiBaseUrl: `${sim.url}/v9`,
        paths: { jobStatus: '/api/v1/jobs/{job_id}', jobList: '/api/v1/projects/{project_code}/jobs' },
      });
      const { id } = await custom.testRuns.submit(TS.salesProd);
      assert.equal((await custom.jobs.get(id)).id, id);
      const wrong = await clientFor(sim, 'admin', {
        apiBaseUrl: `${sim.url}/v9`,
        paths: { jobStatus: '/api/v1/job-status/{job_id}' },
      });
      await assert.rejects(
        wrong.jobs.get(id),
        (e: Error) => e instanceof NotFound && /\/api\/v1\/job-status\//.test(e.message),
      );
      custom.close();
      wrong.close();
    } finally {
      await sim.close();
    }
  });

  test('path segments are URL-encoded', async () => {
    const { sim } = await startTestSimulator();
    try {
      const client = await clientFor(sim);
      await assert.rejects(client.orders.create({ kitchen: 'a/b ?c', recipe: 'r#1', variation: 'v' }), (e: Error) => {
        assert.match(e.message, /Kitchen 'a\/b \?c' does not exist/);
        return true;
      });
      const entry = sim.controls.requests().findLast((r) => r.method === 'PUT');
      assert.equal(entry?.path, '/v2/order/create/a%2Fb%20%3Fc/r%231/v');
      client.close();
    } finally {
      await sim.close();
    }
  });

  test('no hidden retries by default; an opt-in retry policy for standalone use, idempotent calls only', async () => {
    const { sim } = await startTestSimulator();
    try {
      const plain = await clientFor(sim);
      await plain.login();
      sim.controls.addFault({ kind: 'status', status: 503, path: '/test-definition-export' });
      await assert.rejects(plain.testDefinitions.export(TS.salesProd), (e: Error) => e instanceof ServerError);
      const exports = () => sim.controls.requests().filter((r) => r.path.endsWith('/test-definition-export')).length;
      assert.equal(exports(), 1, 'exactly one attempt');

      const retrying = new ServiceClient({
        baseUrl: sim.url,
        credentials: { ...SEED_USERS.admin },
        retry: { limit: 2 },
      });
      sim.controls.addFault({ kind: 'status', status: 503, path: '/test-definition-export' });
      assert.equal((await retrying.testDefinitions.export(TS.salesProd)).definitions.length, 8);
      assert.equal(exports(), 3, 'one failed attempt and one retry');

      sim.controls.addFault({ kind: 'status', status: 503, path: '/test-runs' });
      await assert.rejects(retrying.testRuns.submit(TS.salesProd), (e: Error) => e instanceof ServerError);
      assert.equal(
        sim.controls.requests().filter((r) => r.path.endsWith('/test-runs')).length,
        1,
        'a POST submission is never retried',
      );
      plain.close();
      retrying.close();
    } finally {
      await sim.close();
    }
  });
});
