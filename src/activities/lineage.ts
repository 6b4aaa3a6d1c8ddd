/**
 * `emitLineage`, run by the workflows as a local activity at each transition of their run and of their remote jobs:
 * it hands the transitions to the worker's lineage emitter (src/lineage/emitter.ts) and returns at once. A test run's
 * per-test outcomes are read from the service (where it lists them) by the emitter, before it sends the event: a
 * read that fails leaves them out, and nothing waits on it.
 */
import type { LineageTransition } from '../contract/lineage.js';
import type { LineageEmitter } from '../lineage/emitter.js';
import { runEvent, type LineageSettings, type TestAssertion } from '../lineage/events.js';
import type { ActivityContext } from './context.js';

export interface LineageDeps {
  emitter: LineageEmitter;
  settings: LineageSettings;
  /** The worker's logger: events are built after the activity has returned, outside its context. */
  log: (message: string, meta: Record<string, unknown>) => void;
}

/** How many per-test results a test run's event carries at most (pages of 100). */
const MAX_ASSERTIONS = 1_000;

/** TestGen's result statuses as an assertion's outcome and severity. */
const SEVERITY: Record<string, string> = { failed: 'error', error: 'error', warning: 'warn' };

/** The run's per-test outcomes; undefined where the deployment does not list them or the read fails. */
async function assertionsOf(
  ctx: ActivityContext,
  lineage: LineageDeps,
  profile: string,
  jobId: string,
): Promise<TestAssertion[] | undefined> {
  const client = ctx.profile(profile).client;
  const out: TestAssertion[] = [];
  try {
    for (let page = 1; out.length < MAX_ASSERTIONS; page++) {
      const got = await client.testRuns.results(jobId, page, 100);
      for (const r of got.items) {
        const status = r.result_status ?? 'unknown';
        out.push({
          assertion: r.test_type,
          success: status === 'passed' || status === 'log',
          ...(r.column_names ? { column: r.column_names } : {}),
          ...(SEVERITY[status] ? { severity: SEVERITY[status] } : {}),
          name: [r.table_name, r.column_names, r.test_type_name ?? r.test_type].filter(Boolean).join(' / '),
        });
      }
      if (got.items.length === 0 || page * 100 >= got.total) break;
    }
    return out;
  } catch (err) {
    lineage.log('lineage: no per-test results for the test run', { jobId, error: (err as Error).message });
    return undefined;
  }
}

export function lineageActivities(ctx: ActivityContext, lineage: LineageDeps | undefined) {
  return {
    /** Queues the transitions' OpenLineage events; never fails a workflow for lineage's sake. */
    emitLineage: async (input: { profile: string; transitions: LineageTransition[] }): Promise<void> => {
      if (!lineage?.emitter.enabled) return;
      for (const t of input.transitions) {
        const readsResults = t.job?.role === 'test_run' && t.eventType === 'COMPLETE';
        lineage.emitter.emit(async () => [
          runEvent(
            t,
            lineage.settings,
            readsResults ? await assertionsOf(ctx, lineage, input.profile, t.job!.jobId) : undefined,
          ),
        ]);
      }
    },
  };
}
