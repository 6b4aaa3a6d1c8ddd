import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ImportConfig as ClientImportConfig, ExportFilters as ClientExportFilters } from '../../src/api/index.js';
import { ImportConfig as ContractImportConfig, PRESETS, Policy } from '../../src/contract/index.js';
import { GROUP_ORDER, ImportRequest, Origin } from '../../src/simulator/definitions.js';
import { TERMINAL } from '../../src/simulator/jobs.js';
import { SERVING_TERMINAL } from '../../src/simulator/orders.js';
import {
  EXPORT_ORIGINS,
  IMPORT_ACTIONS,
  IMPORT_MODES,
  IMPORT_REASONS,
  ON_ABSENCE,
  ON_MATCH,
  ON_NEW,
  TERMINAL_JOB_STATUSES,
  TERMINAL_ORDER_RUN_STATUSES,
  isCompletedOrderRunStatus,
} from '../../src/vocabulary.js';

const sorted = (values: Iterable<string>) => [...values].sort();

// The client and the contract build their enums from src/vocabulary.ts; the simulator plays the service and keeps
// its own copies. These tests fail when any copy drifts from the vocabulary.
describe('one vocabulary of the service', () => {
  test('terminal job and order-run statuses: the simulator plays the same ones the client waits for', () => {
    assert.deepEqual(sorted(TERMINAL), sorted(TERMINAL_JOB_STATUSES));
    assert.deepEqual(sorted(SERVING_TERMINAL), sorted(TERMINAL_ORDER_RUN_STATUSES));
    // Of the ends of an order run, one completed it: the rule of OrderFailed and of `order --wait-for-run`'s exit.
    assert.deepEqual(TERMINAL_ORDER_RUN_STATUSES.filter(isCompletedOrderRunStatus), ['COMPLETED_SERVING']);
    assert.equal(isCompletedOrderRunStatus('ACTIVE_SERVING'), false);
  });

  test('import modes and policies: client, contract and simulator accept exactly the vocabulary', () => {
    const sim = ImportRequest.shape.config.shape;
    for (const [name, values] of [
      ['mode', IMPORT_MODES],
      ['on_match', ON_MATCH],
      ['on_new', ON_NEW],
      ['on_absence', ON_ABSENCE],
    ] as const) {
      assert.deepEqual(sorted(sim[name].options), sorted(values), `simulator ${name}`);
      assert.deepEqual(sorted(ClientImportConfig.shape[name].options), sorted(values), `client ${name}`);
      assert.deepEqual(sorted(ContractImportConfig.shape[name].options), sorted(values), `contract ${name}`);
    }
    for (const name of ['on_match', 'on_new', 'on_absence'] as const)
      assert.deepEqual(
        sorted(Policy.shape[name].options),
        sorted({ on_match: ON_MATCH, on_new: ON_NEW, on_absence: ON_ABSENCE }[name]),
      );
  });

  test("every preset names policies of the vocabulary (the spec's common configurations)", () => {
    for (const [preset, p] of Object.entries(PRESETS)) {
      assert.ok((ON_MATCH as readonly string[]).includes(p.on_match), `${preset}.on_match`);
      assert.ok((ON_NEW as readonly string[]).includes(p.on_new), `${preset}.on_new`);
      assert.ok((ON_ABSENCE as readonly string[]).includes(p.on_absence), `${preset}.on_absence`);
    }
  });

  test('export origins and import actions and reasons', () => {
    assert.deepEqual(sorted(Origin.options), sorted(EXPORT_ORIGINS));
    assert.deepEqual(sorted(ClientExportFilters.shape.origin.unwrap().options), sorted(EXPORT_ORIGINS));
    assert.deepEqual(sorted(new Set(GROUP_ORDER.map(([action]) => action))), sorted(IMPORT_ACTIONS));
    assert.deepEqual(sorted(new Set(GROUP_ORDER.map(([, reason]) => reason))), sorted(IMPORT_REASONS));
  });
});
