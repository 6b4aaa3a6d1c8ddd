#!/usr/bin/env node
// Writes docs/reference/*.md from the code (scripts/reference.ts; run after `npm run build`). Committed; a test
// fails when they are out of date: `npm run docs:reference` brings them up to date.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { referencePages } from '../dist/scripts/reference.js';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const [path, text] of Object.entries(referencePages(root))) {
  mkdirSync(dirname(`${root}${path}`), { recursive: true });
  writeFileSync(`${root}${path}`, text);
  console.log(`wrote ${path} (${text.length} bytes)`);
}
