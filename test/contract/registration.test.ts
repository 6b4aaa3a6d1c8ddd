/**
 * One list of workflows: the contract's (the Nexus service's operations, src/contract/workflow-types.ts). The worker
 * registers exactly those, and nothing else but the internal submitter; the input schemas, the type names and the
 * Nexus handler cover each of them. Read from the compiled modules the worker loads.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WORKFLOW_INPUTS, WORKFLOW_TYPES } from '../../src/contract/index.js';
import { dataopsNexusService } from '../../src/contract/nexus.js';
import { dataopsNexusHandler } from '../../src/nexus/handler.js';

const sorted = (names: Iterable<string>) => [...names].sort();

describe('the one list of workflows', () => {
  const contract = sorted(Object.keys(dataopsNexusService.operations));

  it('the worker registers every workflow of the contract under its name, and only the submitter besides', async () => {
    const registered: Record<string, unknown> = await import('../../src/workflows/index.js');
    assert.deepEqual(sorted(Object.keys(registered)), sorted([...Object.values(WORKFLOW_TYPES), 'dataops.submitter']));
    for (const [name, fn] of Object.entries(registered)) {
      assert.equal(typeof fn, 'function', name);
      assert.equal(typeof (fn as { workflowDefinitionOptions?: unknown }).workflowDefinitionOptions, 'function', name);
    }
  });

  it('type names, input schemas and Nexus operation handlers follow the contract, none missing, none extra', () => {
    assert.equal(contract.length, 6);
    assert.deepEqual(sorted(Object.keys(WORKFLOW_TYPES)), contract);
    for (const [name, type] of Object.entries(WORKFLOW_TYPES)) assert.equal(type, `dataops.${name}`);
    assert.deepEqual(sorted(Object.keys(WORKFLOW_INPUTS)), contract);
    assert.deepEqual(sorted(Object.keys(dataopsNexusHandler({ searchAttributes: false }).handlers)), contract);
  });
});
