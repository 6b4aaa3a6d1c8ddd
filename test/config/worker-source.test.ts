import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError } from '../../src/config/env.js';
import { workflowSource } from '../../src/worker.js';

describe('the worker workflow code', () => {
  test('a configured prebuilt bundle is used; a missing one is a configuration error naming the key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-'));
    const bundle = join(dir, 'bundle.js');
    writeFileSync(bundle, '// bundle');
    assert.deepEqual(workflowSource({ workflowBundle: bundle }), { workflowBundle: { codePath: bundle } });
    assert.throws(
      () => workflowSource({ workflowBundle: join(dir, 'missing.js') }),
      (e: Error) => e instanceof ConfigError && /DATAOPS_WORKFLOW_BUNDLE: no file/.test(e.message),
    );
  });

  test('by default, the bundle that `npm run build` wrote (the development path, bundling at start, is the fallback)', () => {
    const source = workflowSource({});
    assert.ok('workflowBundle' in source && source.workflowBundle, 'npm run build wrote dist/workflow-bundle.js');
    assert.match((source.workflowBundle as { codePath: string }).codePath, /dist\/workflow-bundle\.js$/);
  });
});
