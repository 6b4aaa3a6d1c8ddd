import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '../../src/config/env.js';
import { loadSimulatorConfig } from '../../src/config/simulator.js';
import { loadStarterConfig } from '../../src/config/starter.js';
import { loadWorkerConfig } from '../../src/config/worker.js';

const problemsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
    return err.problems;
  }
  assert.fail('expected a ConfigError');
};

describe('configuration of each program, one module each', () => {
  test('the simulator: defaults, flags over the environment, and every wrong key named', () => {
    assert.deepEqual(loadSimulatorConfig({}, {}), { port: 8700, host: '127.0.0.1', controls: false, variants: {} });
    assert.deepEqual(
      loadSimulatorConfig(
        { port: '9000', controls: true },
        { SIM_PORT: '1', SIM_HOST: '0.0.0.0', SIM_STATE_FILE: 's.json' },
      ),
      { port: 9000, host: '0.0.0.0', stateFile: 's.json', controls: true, variants: {} },
    );
    assert.deepEqual(loadSimulatorConfig({ variants: '{"listingTargets": true, "runSlots": 1}' }, {}).variants, {
      listingTargets: true,
      runSlots: 1,
    });
    assert.deepEqual(
      problemsOf(() => loadSimulatorConfig({}, { SIM_VARIANTS: 'yes' })),
      ['SIM_VARIANTS: must be a JSON object, e.g. {"listingTargets": true}'],
    );
    const bad = problemsOf(() => loadSimulatorConfig({ variants: '{"listingTarget": true, "runSlots": -1}' }, {}));
    assert.equal(bad.length, 2, bad.join('\n'));
    assert.ok(bad.every((p) => p.startsWith('SIM_VARIANTS: ')));
    assert.ok(bad.some((p) => p.includes('runSlots')) && bad.some((p) => p.includes('listingTarget')), bad.join('\n'));
    const problems = problemsOf(() => loadSimulatorConfig({}, { SIM_PORT: '70000', SIM_CONTROLS: 'maybe' }));
    assert.deepEqual(
      problems.map((p) => p.slice(0, p.indexOf(':'))),
      ['SIM_PORT', 'SIM_CONTROLS'],
    );
    assert.match(problems[0]!, /from 0 to 65535, got '70000'/);
  });

  test('the starter: global flags win over the environment; a local server gets Web UI links', () => {
    const c = loadStarterConfig(
      { namespace: 'from-flag' },
      { TEMPORAL_NAMESPACE: 'from-env', TEMPORAL_TASK_QUEUE: 'q' },
    );
    assert.equal(c.temporal.namespace, 'from-flag');
    assert.equal(c.temporal.taskQueue, 'q');
    assert.equal(c.uiUrl, 'http://localhost:8233');
    assert.equal(loadStarterConfig({ address: 'temporal.example:7233' }, {}).uiUrl, undefined);
    assert.deepEqual(
      problemsOf(() => loadStarterConfig({ address: 'nope' }, { DATAOPS_TEMPORAL_UI_URL: 'ftp://x' })).map((p) =>
        p.slice(0, p.indexOf(':')),
      ),
      ['TEMPORAL_ADDRESS', 'DATAOPS_TEMPORAL_UI_URL'],
    );
    const ui = 'http://temporal-ui.example:8080';
    assert.equal(loadStarterConfig({}, { DATAOPS_TEMPORAL_UI_URL: ui }).uiUrl, ui, "the worker's name");
  });

  test("the starter refuses the UI link's earlier name, naming the one the worker and the CLI share", () => {
    assert.deepEqual(
      problemsOf(() => loadStarterConfig({}, { TEMPORAL_UI_URL: 'http://localhost:8233' })),
      ['TEMPORAL_UI_URL: renamed DATAOPS_TEMPORAL_UI_URL, as the worker names it'],
    );
  });

  test('bounds live in the schema: a timeout above 10 minutes is refused', () => {
    const problems = problemsOf(() =>
      loadWorkerConfig({ DATAOPS_USERNAME: 'a', DATAOPS_PASSWORD: 'b', DATAOPS_TIMEOUT_MS: '86400000' }),
    );
    assert.deepEqual(problems, ["DATAOPS_TIMEOUT_MS: expected a whole number from 1 to 600000, got '86400000'"]);
  });

  test('a password inside a URL is refused without being echoed', () => {
    for (const url of ['https://alice:hunter2@service.example', 'ftp://alice:hunter2@service.example']) {
      const problems = problemsOf(() =>
        loadWorkerConfig({ DATAOPS_USERNAME: 'a', DATAOPS_PASSWORD: 'b', DATAOPS_BASE_URL: url }),
      );
      assert.equal(problems.length, 1, problems.join('\n'));
      assert.match(problems[0]!, /^DATAOPS_BASE_URL: must not carry credentials/);
      assert.ok(!problems[0]!.includes('hunter2'), problems[0]);
    }
  });
});
