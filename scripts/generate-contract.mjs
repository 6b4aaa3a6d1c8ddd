#!/usr/bin/env node
// Writes contract/json-schema/*.json (the workflows' contract) and contract/lineage/*.json (our OpenLineage facets)
// from the zod schemas of src/contract (run after `npm run build`).
// Committed; a test fails when they are out of date: `npm run contract:json` brings them up to date.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FAILURE_TYPES } from '../dist/src/contract/failures.js';
import { contractJsonSchemas, lineageFacetSchemas } from '../dist/src/contract/json-schema.js';

for (const [folder, schemas] of [
  ['json-schema', contractJsonSchemas()],
  ['lineage', lineageFacetSchemas()],
]) {
  const dir = fileURLToPath(new URL(`../contract/${folder}/`, import.meta.url));
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(dir)) if (f.endsWith('.json')) rmSync(`${dir}${f}`);
  for (const [file, schema] of Object.entries(schemas))
    writeFileSync(`${dir}${file}`, `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`wrote ${Object.keys(schemas).length} JSON Schema files to contract/${folder}/`);
}
writeFileSync(new URL('../contract/failures.json', import.meta.url), `${JSON.stringify(FAILURE_TYPES, null, 2)}\n`);
console.log(`wrote ${FAILURE_TYPES.length} failure types to contract/failures.json`);
