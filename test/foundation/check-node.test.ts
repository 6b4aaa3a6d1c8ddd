/**
 * `npm start` on a Node.js the package does not support stops at once, saying which Node it needs and the command
 * that installs one (scripts/check-node.mjs, its `prestart`), instead of npm's warning and a failure later.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const script = fileURLToPath(new URL('../../../scripts/check-node.mjs', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
  scripts: Record<string, string>;
};
const { supports, refusal } = (await import(new URL('../../../scripts/check-node.mjs', import.meta.url).href)) as {
  supports: (version: string, range: string) => boolean;
  refusal: (version: string, range: string) => string | undefined;
};

test('the engines range: 22.12 and later 22s, 24 and later; not 20, nor 22 before .12, nor 23', () => {
  const range = pkg.engines.node;
  for (const v of ['22.12.0', '22.23.3', '24.0.0', '24.21.0', '26.1.0']) assert.ok(supports(v, range), v);
  for (const v of ['20.20.2', '22.11.0', '23.5.0', '18.0.0']) assert.ok(!supports(v, range), v);
});

test('an old Node is refused, naming the Node it needs and the command that installs one', () => {
  const message = refusal('20.20.2', pkg.engines.node);
  assert.match(message ?? '', /needs Node\.js 22\.12 or a later 22, or 24 or later .*this is Node\.js 20\.20\.2/);
  assert.match(message ?? '', /PATH="\$\(bash scripts\/install-node\.sh 24\):\$PATH" npm start/);
  assert.equal(refusal(process.versions.node, pkg.engines.node), undefined, 'this Node runs the tests: supported');
});

test("npm start checks first, then installs only the dev server (the test servers are the test command's)", () => {
  assert.match(pkg.scripts.prestart ?? '', /^node scripts\/check-node\.mjs && /);
  assert.match(pkg.scripts.prestart ?? '', /install-temporal\.sh --dev-server$/);
  const run = spawnSync(process.execPath, [script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
});
