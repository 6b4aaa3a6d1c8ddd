/**
 * Every shell command in the README and the guide is run by a test, or says what this machine lacks to run it. A
 * block marked `run-by` names files that either hold each of its commands word for word (and run it, or what it
 * runs) or read the document and run its blocks themselves.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { shellBlocks } from '../helpers/doc-blocks.js';
import { root, runTests } from '../helpers/test-command.js';

const DOCS = ['README.md', 'docs/guide.md'];

/** What is wrong with the blocks of `doc` (its text given, or read), and how many commands were checked. */
function blockProblems(doc: string, text?: string): { problems: string[]; checked: number } {
  const problems: string[] = [];
  let checked = 0;
  for (const block of shellBlocks(doc, text)) {
    const where = `${doc}:${block.line}`;
    if (!block.marker) {
      problems.push(`${where}: no <!-- run-by: … --> or <!-- needs: … --> on the line before the block`);
      continue;
    }
    if (block.marker.kind === 'needs') continue;
    const sources = block.marker.files.map((f) => {
      if (!existsSync(`${root}${f}`)) problems.push(`${where}: run-by names ${f}, which does not exist`);
      return existsSync(`${root}${f}`) ? readFileSync(`${root}${f}`, 'utf8') : '';
    });
    for (const command of block.commands) {
      checked++;
      if (!sources.some((s) => s.includes(command) || s.includes(`'${doc}'`)))
        problems.push(`${where}: no file of ${block.marker.files.join(', ')} runs \`${command}\``);
    }
  }
  return { problems, checked };
}

test('every shell block of the README and the guide is run by a test, or marked with what it needs', () => {
  let checked = 0;
  for (const doc of DOCS) {
    const found = blockProblems(doc);
    assert.deepEqual(found.problems, []);
    checked += found.checked;
  }
  assert.ok(checked >= 5, `only ${checked} commands checked: the documents have lost their blocks`);
});

test('a block without a marker, or whose files do not run it, is reported with where it is', () => {
  const text = [
    '# t',
    '```sh',
    'npm run nothing',
    '```',
    '<!-- run-by: .ci/run -->',
    '```sh',
    'npm ci && npm run something-else   # a comment',
    '```',
    '<!-- run-by: no/such/file.ts -->',
    '```sh',
    'npm ci',
    '```',
  ].join('\n');
  assert.deepEqual(blockProblems('docs/fake.md', text).problems, [
    'docs/fake.md:2: no <!-- run-by: … --> or <!-- needs: … --> on the line before the block',
    'docs/fake.md:6: no file of .ci/run runs `npm run something-else`',
    'docs/fake.md:10: run-by names no/such/file.ts, which does not exist',
    'docs/fake.md:10: no file of no/such/file.ts runs `npm ci`',
  ]);
});

test("the README's quick subset runs: npm test -- api/ config/ simulator/", () => {
  // `npm test` is the runner after its pretest (which builds and installs, as this suite's own run already did).
  const run = runTests(['config/', 'simulator/'], 'api/');
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /tests: \d+ passed, 0 failed, 0 skipped/);
});
