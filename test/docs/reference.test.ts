/**
 * docs/reference/ is generated from the code (scripts/reference.ts): a committed page that differs from what the code
 * renders now fails here, with the command that brings it up to date. A setting declared without `doc()` cannot be
 * rendered at all.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import { referencePages, settingsPage } from '../../scripts/reference.js';
import { SETTINGS, int } from '../../src/config/env.js';
import { workerEnv } from '../../src/config/worker.js';
import { root } from '../helpers/test-command.js';

test('every generated reference page is up to date (npm run docs:reference)', () => {
  const pages = referencePages(root);
  for (const [path, text] of Object.entries(pages))
    assert.equal(readFileSync(`${root}${path}`, 'utf8'), text, `${path} is stale: run npm run docs:reference`);
  assert.deepEqual(
    readdirSync(`${root}docs/reference`).sort(),
    Object.keys(pages)
      .map((p) => p.replace('docs/reference/', ''))
      .sort(),
    'docs/reference holds the generated pages and nothing else',
  );
});

test('the settings page names every variable the worker reads, with its type and default from the schema', () => {
  const page = settingsPage();
  for (const key of Object.keys(workerEnv)) assert.match(page, new RegExp(`\\| \`${key}\` \\|`), key);
  assert.match(page, /\| `DATAOPS_TIMEOUT_MS` \| whole number, 1–600000 \| `30000` \|/);
  assert.match(
    page,
    /\| `DATAOPS_\[<PROFILE>_\]PASSWORD` or `DATAOPS_\[<PROFILE>_\]PASSWORD_FILE` \| secret, never shown \|/,
  );
});

test('a setting declared without doc() stops the page from rendering, naming it', () => {
  const undocumented = int({ fallback: 1, min: 0, max: 2 });
  (workerEnv as Record<string, unknown>).DATAOPS_UNDOCUMENTED = undocumented;
  try {
    assert.throws(() => settingsPage(), /setting DATAOPS_UNDOCUMENTED has no doc\(\)/);
  } finally {
    delete (workerEnv as Record<string, unknown>).DATAOPS_UNDOCUMENTED;
    SETTINGS.remove(undocumented);
  }
});
