/**
 * The documents stay readable: the README at most 250 lines, docs/ at most 120 KB in all, each design page at most
 * 8 KB; no dated journal and no narration of how the project was written (the CHANGELOG keeps what changed, by
 * version). The one date allowed is the line that says when the current benchmark figures were measured.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BEGIN, END } from '../../bench/report-text.js';
import { root } from '../helpers/test-command.js';

const files = (dir: string): string[] =>
  readdirSync(join(root, dir)).flatMap((f) =>
    statSync(join(root, dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)],
  );
const DOCS = ['README.md', ...files('docs').filter((f) => f.endsWith('.md'))];

/** What a document must not say: dates, and the stretches of work in which it was written. */
const JOURNAL = [
  /\b20\d\d-\d\d-\d\d\b/,
  /\b(this|that|an earlier|a later|the last|earlier|later) sessions?\b/i,
  /\bsession \d+|\bstop \d+\b/i,
  /\bissues? #?\d+\b/i,
  /(^|\s)#\d{2,3}\b/,
];

test('the README is at most 250 lines', () => {
  const lines = readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n').length;
  assert.ok(lines <= 250, `README.md has ${lines} lines`);
});

test('docs/ is at most 120 KB in all, and each design page at most 8 KB', () => {
  const sizes = files('docs').map((f) => [f, statSync(join(root, f)).size] as const);
  const total = sizes.reduce((n, [, s]) => n + s, 0);
  assert.ok(total <= 120 * 1024, `docs/ holds ${total} bytes:\n${sizes.map(([f, s]) => `${s} ${f}`).join('\n')}`);
  for (const [f, s] of sizes) if (f.startsWith('docs/design/')) assert.ok(s <= 8 * 1024, `${f} is ${s} bytes`);
  assert.ok(
    sizes.some(([f]) => f.startsWith('docs/design/')),
    'the design pages exist',
  );
});

test('no document is a dated journal or narrates its own history', () => {
  const problems: string[] = [];
  for (const doc of DOCS) {
    let text = readFileSync(join(root, doc), 'utf8');
    const from = text.indexOf(BEGIN);
    if (from >= 0) text = text.slice(0, from) + text.slice(text.indexOf(END));
    text.split('\n').forEach((line, i) => {
      for (const re of JOURNAL) if (re.test(line)) problems.push(`${doc}:${i + 1}: ${re} in "${line.trim()}"`);
    });
  }
  assert.deepEqual(problems, []);
});
