/**
 * Our OpenLineage events against the official OpenLineage JSON Schemas (2-0-2 and its facets), with ajv: an event of
 * each kind is valid, every facet we send names an official schema or one of ours, and a broken copy of each part is
 * refused, with a message that says where. The events of real runs are checked the same way where they are made
 * (test/workflows/lineage.test.ts, test/peer/lineage.test.ts). The copy we check against is the one in
 * ../shared/openlineage-spec/ where that is beside the checkout (CI), unmodified.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { eachKind } from '../helpers/lineage-samples.js';
import { OFFICIAL_SPEC_DIR, officialProblems, schemaUrlsOf } from '../helpers/openlineage-schemas.js';

const SHARED = fileURLToPath(new URL('../../../../shared/openlineage-spec/', import.meta.url));

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)).map((f) => join(e.name, f)) : [e.name]))
    .sort();

test("the schemas are the shared folder's, unmodified", (t) => {
  if (!existsSync(SHARED)) {
    assert.notEqual(process.env.CI, 'true', `CI has ../shared/openlineage-spec/ beside the checkout (${SHARED})`);
    t.skip(`no ${SHARED} beside this checkout: the copy in test/fixtures/openlineage-spec/ is checked alone`);
    return;
  }
  const ours = filesUnder(OFFICIAL_SPEC_DIR);
  assert.deepEqual(ours, filesUnder(SHARED));
  for (const f of ours) assert.ok(readFileSync(join(OFFICIAL_SPEC_DIR, f)).equals(readFileSync(join(SHARED, f))), f);
});

test('an event of each kind is valid, and each facet by the schema its _schemaURL names', () => {
  const events = eachKind();
  for (const e of events) assert.deepEqual(officialProblems(e), [], JSON.stringify(e));
  const types = new Set(events.map((e) => e.eventType));
  assert.deepEqual([...types].sort(), ['ABORT', 'COMPLETE', 'FAIL', 'START']);
  // Every facet kind we send, checked: the six official ones and our two.
  const facets = schemaUrlsOf(events)
    .map((u) => /\/(\w+)\.json/.exec(u)?.[1] ?? u)
    .sort((a, b) => a.localeCompare(b));
  assert.deepEqual(facets, [
    'DataopsQualityRunFacet',
    'DataopsRunFacet',
    'DataQualityAssertionsDatasetFacet',
    'DataQualityMetricsInputDatasetFacet',
    'ErrorMessageRunFacet',
    'JobTypeJobFacet',
    'ParentRunFacet',
    'SchemaDatasetFacet',
  ]);
});

test('a broken copy of each part is refused, saying where', () => {
  const events = eachKind() as Record<string, any>[];
  const withTables = events.find((e) => e.inputs.length && e.inputs[0].inputFacets?.dataQualityAssertions)!;
  const failed = events.find((e) => e.run.facets.errorMessage)!;
  const broken: [string, Record<string, any>, (e: Record<string, any>) => void, RegExp][] = [
    ['no event time', withTables, (e) => delete e.eventTime, /^event: must have required property 'eventTime'/],
    ['a time without a zone', withTables, (e) => (e.eventTime = 'yesterday'), /^event\/eventTime: must match format/],
    [
      'a run id that is no UUID',
      withTables,
      (e) => (e.run.runId = 'job-1'),
      /^event\/run\/runId: must match format "uuid"/,
    ],
    ['an unknown event type', withTables, (e) => (e.eventType = 'DONE'), /^event\/eventType: must be equal to one of/],
    [
      'a producer that is no URI',
      withTables,
      (e) => (e.producer = 'our worker'),
      /^event\/producer: must match format "uri"/,
    ],
    [
      'a dataset without a name',
      withTables,
      (e) => delete e.inputs[0].name,
      /^event\/inputs\/0: must have required property 'name'/,
    ],
    [
      'an error message without its language',
      failed,
      (e) => delete e.run.facets.errorMessage.programmingLanguage,
      /^run\.facets\.errorMessage: must have required property 'programmingLanguage'/,
    ],
    [
      'an assertion without its outcome',
      withTables,
      (e) => delete e.inputs[0].inputFacets.dataQualityAssertions.assertions[0].success,
      /^inputs\[0\]\.inputFacets\.dataQualityAssertions\/assertions\/0: must have required property 'success'/,
    ],
    [
      'a parent without its run',
      withTables,
      (e) => delete e.run.facets.parent.run,
      /^run\.facets\.parent: must have required property 'run'/,
    ],
    [
      'a facet version that does not exist',
      withTables,
      (e) => (e.run.facets.parent._schemaURL = e.run.facets.parent._schemaURL.replace('1-2-0', '9-9-9')),
      /^run\.facets\.parent: _schemaURL .* names no official facet schema and none of ours/,
    ],
    [
      'our facet with a wrong type',
      withTables,
      (e) => (e.run.facets.dataops_run.workflowId = 42),
      /^run\.facets\.dataops_run\/workflowId: must be string/,
    ],
    [
      'our failure with an unknown kind',
      failed,
      (e) => (e.run.facets.dataops_run.failure.kind = 'disk'),
      /^run\.facets\.dataops_run\/failure\/kind: must be equal to one of/,
    ],
  ];
  for (const [what, good, breakIt, message] of broken) {
    const e = structuredClone(good);
    breakIt(e);
    const problems = officialProblems(e);
    assert.ok(problems.length > 0, `${what}: refused`);
    assert.ok(
      problems.some((p) => message.test(p)),
      `${what}: ${problems.join('\n')}`,
    );
  }
});
