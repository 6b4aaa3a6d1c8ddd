/**
 * Lineage for tests: activity dependencies that write OpenLineage events to a fresh file (tables named by their
 * connection, as the worker names them), and reading it back, every event checked by the official schemas.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ActivityDeps } from '../../src/activities/index.js';
import type { JobLinks } from '../../src/contract/job-links.js';
import { Datasources } from '../../src/lineage/datasources.js';
import { LineageEmitter } from '../../src/lineage/emitter.js';
import { officialProblems } from './openlineage-schemas.js';

/** What the tests read of an event. */
export interface LineageEvent {
  eventType: string;
  eventTime: string;
  run: { runId: string; facets: Record<string, Record<string, unknown>> };
  job: { namespace: string; name: string };
  inputs: {
    namespace: string;
    name: string;
    facets?: Record<string, Record<string, unknown>>;
    inputFacets?: Record<string, Record<string, unknown>>;
  }[];
}

/** A UI with TestGen's pages, as DATAOPS_SERVICE_UI_URL makes them. */
export const TEST_LINKS = {
  profiling: 'http://ui.example:8501/profiling-runs:results?run_id={job_id}',
  test_run: 'http://ui.example:8501/test-runs:results?run_id={job_id}',
} as const;

/** `deps` with lineage written to a fresh JSON-lines file (and job links), the file, and its emitter (to flush). */
export function fileLineage(
  deps: ActivityDeps,
  jobLinks: JobLinks = TEST_LINKS,
): { deps: ActivityDeps; file: string; emitter: LineageEmitter } {
  const file = join(mkdtempSync(join(tmpdir(), 'lineage-')), 'events.jsonl');
  const emitter = new LineageEmitter({ transport: { type: 'file', path: file } });
  const settings = { namespace: 'temporal://sim', producerVersion: '1.0.0-test' };
  const lineage = { emitter, settings, datasources: new Datasources(), log: () => undefined };
  return { deps: { ...deps, lineage, jobLinks }, file, emitter };
}

/** The events in the file, each checked against the official OpenLineage schemas first (a problem fails the test). */
export function readEvents(file: string): LineageEvent[] {
  if (!existsSync(file)) return [];
  const events = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LineageEvent);
  for (const e of events)
    assert.deepEqual(officialProblems(e), [], `valid by the official OpenLineage schemas: ${JSON.stringify(e)}`);
  return events;
}
