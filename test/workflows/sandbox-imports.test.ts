/**
 * What every workflow's sandbox loads: nothing that builds zod schemas. The input check runs in the worker (a local
 * activity), so a cached workflow does not hold its own copy of the contract's schemas. Only input-in-sandbox.js
 * loads them, through a dynamic import, for the workflows that need it. Read from the compiled code the bundler sees.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const workflowsIndex = fileURLToPath(new URL('../../src/workflows/index.js', import.meta.url));

/** The modules `file` loads when it is evaluated: static imports and re-exports (not `import()`), with their chain. */
function staticGraph(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>([[entry, [entry]]]);
  const queue = [entry];
  while (queue.length) {
    const file = queue.shift()!;
    const code = readFileSync(file, 'utf8');
    for (const m of code.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)';/gms)) {
      const spec = m[1]!;
      const key = spec.startsWith('.') ? resolve(dirname(file), spec) : spec;
      if (seen.has(key)) continue;
      seen.set(key, [...seen.get(file)!, key]);
      if (spec.startsWith('.')) queue.push(key);
    }
    for (const m of code.matchAll(/^import\s+'([^']+)';/gm)) {
      const key = m[1]!.startsWith('.') ? resolve(dirname(file), m[1]!) : m[1]!;
      if (!seen.has(key)) seen.set(key, [...seen.get(file)!, key]);
    }
  }
  return seen;
}

describe('the workflow sandbox', () => {
  it('loads no zod when a workflow starts: the schemas are built by the worker', () => {
    const graph = staticGraph(workflowsIndex);
    assert.ok(graph.size > 5, `read ${graph.size} modules`);
    const zod = [...graph.keys()].filter((k) => k === 'zod' || k.startsWith('zod/'));
    assert.deepEqual(
      zod.map((k) => graph.get(k)!.join(' → ')),
      [],
      'a workflow module imports zod (directly or through a schema module of the contract)',
    );
  });

  it('loads the schemas only through the lazy in-sandbox check', () => {
    const inSandbox = fileURLToPath(new URL('../../src/workflows/input-in-sandbox.js', import.meta.url));
    assert.ok(!staticGraph(workflowsIndex).has(inSandbox));
    assert.ok(staticGraph(inSandbox).has('zod'), 'the in-sandbox check is where the schemas are');
  });
});
