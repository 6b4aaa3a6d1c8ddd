import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SEED_IDS, startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { SimHttp, startTestSimulator } from '../helpers/sim.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;

describe('simulator bad input', () => {
  let sim: RunningSimulator;
  let http: SimHttp;
  before(async () => {
    ({ sim, http } = await startTestSimulator());
  });
  after(async () => sim?.close());

  test('every malformed request gets a 4xx in the deployed envelope, never a 500, and changes no state', async () => {
    const token = await http.token();
    const jobsBefore = sim.controls.jobs().length;
    const ordersBefore = sim.controls.orders().length;
    const defsBefore = sim.controls.definitions(TS.salesProd);
    const cases: [string, string, Parameters<SimHttp['request']>[2], number][] = [
      ['PUT', '/v2/order/create/production/load-warehouse/daily', { token, raw: '{"parameters": ' }, 422],
      [
        'PUT',
        '/v2/order/create/production/load-warehouse/daily',
        { token, raw: 'a=b', contentType: 'application/x-www-form-urlencoded' },
        415,
      ],
      [
        'PUT',
        '/v2/order/create/production/load-warehouse/daily',
        { token, raw: '<xml/>', contentType: 'application/xml' },
        415,
      ],
      ['PUT', '/v2/order/create/production/load-warehouse/daily', { token, json: { parameters: 'x' } }, 422],
      ['POST', '/api/v1/table-groups/not-a-uuid/profiling-runs', { token }, 422],
      ['POST', `/api/v1/test-suites/${TS.salesProd}/test-runs/extra`, { token }, 404],
      ['GET', '/api/v1/jobs/12345', { token }, 422],
      ['GET', '/api/v1/projects/DEMO/jobs?page=0', { token }, 422],
      ['GET', '/api/v1/projects/DEMO/jobs?limit=abc', { token }, 422],
      ['POST', `/api/v1/test-suites/${TS.salesProd}/test-definition-import`, { token, raw: '[]' }, 422],
      ['POST', `/api/v1/test-suites/${TS.salesProd}/test-definition-import`, { token, raw: 'null' }, 422],
      [
        'POST',
        `/api/v1/test-suites/${TS.salesProd}/test-definition-import`,
        { token, json: { config: 'apply', payload: 1 } },
        422,
      ],
      [
        'POST',
        `/api/v1/test-suites/${TS.salesProd}/test-definition-import`,
        { token, raw: '{"config": {"mode": "apply"' },
        422,
      ],
      ['POST', '/v2/order/details/production', { token, json: { summary: true } }, 422],
      ['POST', '/v2/login', { form: { username: '' } }, 422],
      ['GET', '/nowhere', {}, 404],
    ];
    for (const [method, path, opts, want] of cases) {
      const res = await http.request(method, path, opts);
      assert.equal(res.status, want, `${method} ${path}: ${res.text}`);
      assert.ok(
        typeof res.body === 'object' && res.body !== null && 'detail' in res.body,
        `${method} ${path} envelope: ${res.text}`,
      );
    }
    assert.equal(sim.controls.jobs().length, jobsBefore);
    assert.equal(sim.controls.orders().length, ordersBefore);
    assert.deepEqual(sim.controls.definitions(TS.salesProd), defsBefore);
    assert.ok(
      sim.controls.requests().every((r) => r.status < 500),
      'no 5xx at all',
    );
  });

  test('the API can sit under a base path', async () => {
    const based = await startTestSimulator({ apiBasePath: '/quality' });
    try {
      const res = await based.http.as('admin', 'POST', `/quality/api/v1/table-groups/${TG.finance}/profiling-runs`);
      assert.equal(res.status, 202);
      assert.equal(
        (await based.http.as('admin', 'POST', `/api/v1/table-groups/${TG.finance}/profiling-runs`)).status,
        404,
      );
    } finally {
      await based.sim.close();
    }
  });
});

describe('simulator state file', () => {
  test('a restarted simulator still knows its jobs, tokens, definitions and clock', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'sim-state-')), 'state.json');
    // Manual clocks and a long claim phase: the job's status depends on the advances only, never on how long the
    // machine takes between two requests (a real-time claim of a second failed on a loaded CI machine).
    const first = await startSimulator({
      stateFile,
      controls: true,
      manualClock: true,
      jobDurations: { pendingMs: 60_000, claimMs: 600_000 },
    });
    const http1 = new SimHttp(first);
    const token = await http1.login('admin');
    const job = await http1.request('POST', `/api/v1/table-groups/${TG.finance}/profiling-runs`, { token });
    first.controls.advanceClock(10_000);
    const file = await http1.request('GET', `/api/v1/test-suites/${TS.salesDev}/test-definition-export?origin=manual`, {
      token,
    });
    await first.close();

    const second = await startSimulator({ stateFile, controls: true, manualClock: true });
    try {
      const http2 = new SimHttp(second);
      const again = await http2.request('GET', `/api/v1/jobs/${job.body.id}`, { token });
      assert.equal(again.status, 200, 'the token and the job survived the restart');
      assert.equal(again.body.status, 'pending');
      second.controls.advanceClock(50_000);
      assert.equal((await http2.request('GET', `/api/v1/jobs/${job.body.id}`, { token })).body.status, 'claimed');
      const file2 = await http2.request(
        'GET',
        `/api/v1/test-suites/${TS.salesDev}/test-definition-export?origin=manual`,
        { token },
      );
      assert.deepEqual(
        file2.body.definitions.map((d: { external_id: string }) => d.external_id),
        file.body.definitions.map((d: { external_id: string }) => d.external_id),
        'external ids assigned before the restart are kept',
      );
      assert.equal(second.controls.counters().submissions[TG.finance], 1);
    } finally {
      await second.close();
    }
  });

  test('a state file that does not parse is named, and left as it was', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'sim-state-')), 'state.json');
    writeFileSync(stateFile, '{"version": 1, "jobs": {');
    await assert.rejects(startSimulator({ stateFile }), (err: Error) =>
      err.message.startsWith(`cannot read simulator state file ${stateFile}: `),
    );
    assert.equal(readFileSync(stateFile, 'utf8'), '{"version": 1, "jobs": {');
  });
});
