/**
 * Our OpenLineage events checked against the official OpenLineage JSON Schemas (test/fixtures/openlineage-spec/, an
 * unmodified copy of the OpenLineage project's spec/ at the commit its README names), with ajv (draft 2020-12, strict,
 * formats checked): each event against `OpenLineage.json#/$defs/RunEvent`, and each facet against the schema its
 * `_schemaURL` names, ours (`dataops_*`) against contract/lineage/. A facet whose `_schemaURL` names no schema we have
 * is a problem too: a consumer could not check it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { facetSchemaUrl } from '../../src/contract/lineage-facets.js';

/** The official schemas, as this repository keeps them (test/fixtures/openlineage-spec/). */
export const OFFICIAL_SPEC_DIR = fileURLToPath(new URL('../../../test/fixtures/openlineage-spec/', import.meta.url));
const OURS_DIR = fileURLToPath(new URL('../../../contract/lineage/', import.meta.url));
const RUN_EVENT = 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent';

type Json = Record<string, unknown>;
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Json;

function build() {
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  ajv.addKeyword('example');
  ajv.addKeyword('documentation');
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const official = [
    readJson(join(OFFICIAL_SPEC_DIR, 'OpenLineage.json')),
    ...readdirSync(join(OFFICIAL_SPEC_DIR, 'facets')).map((f) => readJson(join(OFFICIAL_SPEC_DIR, 'facets', f))),
  ];
  for (const schema of official) ajv.addSchema(schema);
  const facetIds = new Map<string, string>();
  for (const schema of official) {
    const id = String(schema.$id);
    for (const name of Object.keys((schema.$defs as Json | undefined) ?? {}))
      if (id.includes('/facets/')) facetIds.set(`${id}#/$defs/${name}`, `${id}#/$defs/${name}`);
  }
  // Ours are published under the package's version; any version names the same file.
  const ours = new Map<string, ValidateFunction>();
  for (const file of readdirSync(OURS_DIR))
    ours.set(file.replace(/\.json$/, ''), ajv.compile({ ...readJson(join(OURS_DIR, file)), $id: undefined }));
  return { ajv, facetIds, ours, runEvent: ajv.getSchema(RUN_EVENT)! };
}

let compiled: ReturnType<typeof build> | undefined;

const problemsOf = (where: string, validate: ValidateFunction, value: unknown): string[] =>
  validate(value)
    ? []
    : (validate.errors ?? []).map(
        (e) => `${where}${e.instancePath || ''}: ${e.message ?? e.keyword} (${e.schemaPath})`,
      );

/** Every facet of an event, with where it sits: run, job, and each input and output dataset's facets. */
function facetsOf(event: Json): [string, Json][] {
  const out: [string, Json][] = [];
  const add = (where: string, facets: unknown) => {
    for (const [name, facet] of Object.entries((facets as Record<string, Json> | undefined) ?? {}))
      out.push([`${where}.${name}`, facet]);
  };
  add('run.facets', (event.run as Json | undefined)?.facets);
  add('job.facets', (event.job as Json | undefined)?.facets);
  for (const side of ['inputs', 'outputs'] as const)
    ((event[side] as Json[] | undefined) ?? []).forEach((d, i) => {
      add(`${side}[${i}].facets`, d.facets);
      add(`${side}[${i}].inputFacets`, d.inputFacets);
      add(`${side}[${i}].outputFacets`, d.outputFacets);
    });
  return out;
}

/** What is wrong with an event by the official schemas and ours: one line per problem, none when it is valid. */
export function officialProblems(event: unknown): string[] {
  compiled ??= build();
  const c = compiled;
  const problems = problemsOf('event', c.runEvent, event);
  if (typeof event !== 'object' || event === null) return problems;
  for (const [where, facet] of facetsOf(event as Json)) {
    const url = typeof facet._schemaURL === 'string' ? facet._schemaURL : '';
    const ourName = /\/contract\/lineage\/(\w+)\.json$/.exec(url)?.[1];
    const ours = ourName ? c.ours.get(ourName) : undefined;
    if (ours && url === facetSchemaUrl(/@([^/]+)\//.exec(url)?.[1] ?? '', ourName!)) {
      problems.push(...problemsOf(where, ours, facet));
      continue;
    }
    const official = c.facetIds.get(url) ? c.ajv.getSchema(url) : undefined;
    if (!official) {
      problems.push(`${where}: _schemaURL ${JSON.stringify(url)} names no official facet schema and none of ours`);
      continue;
    }
    problems.push(...problemsOf(where, official, facet));
  }
  return problems;
}

/** The facets by `_schemaURL` that a set of events carries (what a test's note lists as validated). */
export function schemaUrlsOf(events: unknown[]): string[] {
  const urls = events.flatMap((e) => facetsOf(e as Json).map(([, f]) => f._schemaURL));
  return [...new Set(urls.map((u) => (typeof u === 'string' ? u : '(none)')))].sort();
}
