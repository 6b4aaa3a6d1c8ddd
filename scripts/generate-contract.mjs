#!/usr/bin/env node
// Writes contract/json-schema/*.json from the zod schemas of src/contract (run after `npm run build`).
// Committed; a test fails when they are out of date: `npm run contract:json` brings them up to date.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FAILURE_TYPES } from '../dist/src/contract/failures.js';
import { contractJsonSchemas } from '../dist/src/contract/json-schema.js';

const dir = fileURLToPath(new URL('../contract/json-schema/', import.meta.url));
mkdirSync(dir, { recursive: true });
for (const f of readdirSync(dir)) if (f.endsWith('.json')) rmSync(`${dir}${f}`);
const schemas = contractJsonSchemas();
for (const [file, schema] of Object.entries(schemas))
  writeFileSync(`${dir}${file}`, `${JSON.stringify(schema, null, 2)}\n`);
console.log(`wrote ${Object.keys(schemas).length} JSON Schema files to contract/json-schema/`);
writeFileSync(new URL('../contract/failures.json', import.meta.url), `${JSON.stringify(FAILURE_TYPES, null, 2)}\n`);
console.log(`wrote ${FAILURE_TYPES.length} failure types to contract/failures.json`);
