/**
 * The README's first command, `npm start` (src/demo.ts): on the embedded default, with no account and no
 * configuration, it runs the pipeline and the promotion to the end, exits 0, and leaves nothing behind in the
 * temporary directory.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dist, runScriptInOwnTmp } from '../helpers/processes.js';

test('npm start runs the pipeline and the promotion to the end, then removes its working directory', async () => {
  const { code, out, left } = await runScriptInOwnTmp(dist('demo.js'));
  assert.equal(code, 0, out);
  assert.match(out, /pipeline exit code: 0/);
  assert.match(out, /promotion APPLIED \(approved by demo\)/);
  assert.match(out, /stopped the worker, the simulator and the dev server/);
  assert.doesNotMatch(out, /level=WARN/, "the dev server's start-up warnings (a generated cluster id) are not shown");
  assert.deepEqual(
    left.filter((f) => f.startsWith('dataops-demo-')),
    [],
  );
});
