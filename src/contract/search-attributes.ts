/**
 * The search attributes our workflows set as they progress, so runs can be found by what they are about
 * (`dataops list --table-group …`, or any visibility query). Keyword attributes of the namespace: registered by
 * `dataops setup search-attributes` (and by the project's own dev-server setup); a worker checks them at start.
 * Zod-free: workflow code imports it.
 */
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import type { Workflows, WorkflowType } from './workflow-types.js';

export const SEARCH_ATTRIBUTES = {
  /** The table group profiled (pipeline, profileTableGroup). */
  tableGroupId: defineSearchAttributeKey('DataopsTableGroupId', SearchAttributeType.KEYWORD),
  /** The test suite run (pipeline, runTestSuite) or promoted to (promoteTestDefinitions, exportTestDefinitions: from). */
  testSuiteId: defineSearchAttributeKey('DataopsTestSuiteId', SearchAttributeType.KEYWORD),
  /** The last stage the run reached: one of STAGES (a closed run's status is its execution status). */
  stage: defineSearchAttributeKey('DataopsStage', SearchAttributeType.KEYWORD),
  /** How it ended, once it did: one of VERDICTS. */
  verdict: defineSearchAttributeKey('DataopsVerdict', SearchAttributeType.KEYWORD),
} as const;

/** The stages a run reports in `DataopsStage`. */
export const STAGES = [
  'order',
  'profiling',
  'generation',
  'test_run',
  'exporting',
  'previewing',
  'awaiting_approval',
  'applying',
] as const;
export type Stage = (typeof STAGES)[number];

/** `DataopsVerdict`: the pipeline's gates (`passed`, `failed`); the promotion's end (`applied`, `rejected`, `timed_out`). */
export const VERDICTS = ['passed', 'failed', 'applied', 'rejected', 'timed_out'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** What a run sets in its search attributes at one point (absent: left as it is). */
export interface SearchUpdate {
  tableGroupId?: string;
  testSuiteId?: string;
  stage?: Stage;
  verdict?: Verdict;
}

/** The update as the SDK's pairs, in a fixed order. */
export function searchPairs(update: SearchUpdate): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [];
  if (update.tableGroupId) pairs.push({ key: SEARCH_ATTRIBUTES.tableGroupId, value: update.tableGroupId });
  if (update.testSuiteId) pairs.push({ key: SEARCH_ATTRIBUTES.testSuiteId, value: update.testSuiteId });
  if (update.stage) pairs.push({ key: SEARCH_ATTRIBUTES.stage, value: update.stage });
  if (update.verdict) pairs.push({ key: SEARCH_ATTRIBUTES.verdict, value: update.verdict });
  return pairs;
}

/** What each workflow sets first, from its input: what the run is about and its first stage. */
const OPENING: { [K in WorkflowType]: (input: Workflows[K][0]) => SearchUpdate } = {
  dataQualityPipeline: (i) => ({
    tableGroupId: i.tableGroupId,
    testSuiteId: i.testSuiteId,
    stage: i.order ? 'order' : 'profiling',
  }),
  profileTableGroup: (i) => ({ tableGroupId: i.tableGroupId, stage: 'profiling' }),
  runTestSuite: (i) => ({ testSuiteId: i.testSuiteId, stage: 'test_run' }),
  runOrder: () => ({ stage: 'order' }),
  promoteTestDefinitions: (i) => ({
    testSuiteId: i.targetTestSuiteId,
    stage: 'testSuiteId' in i.source ? 'exporting' : 'previewing',
  }),
  exportTestDefinitions: (i) => ({ testSuiteId: i.testSuiteId, stage: 'exporting' }),
};

/**
 * What workflow `type` sets first, from its input. The workflows set it from this, and a caller may set it in the
 * start itself (`searchAttributesAtStart`), which the run then does not set again.
 */
export const openingSearch = <K extends WorkflowType>(type: K, input: Workflows[K][0]): SearchUpdate =>
  (OPENING[type] as (input: Workflows[K][0]) => SearchUpdate)(input);

/**
 * The search attributes workflow `type` sets first, for a start's `typedSearchAttributes`: the run can be found by
 * them from its start, before a worker takes it, and saves the upsert (a history event, and a Temporal Cloud action)
 * that would set them. The namespace must have them registered (a worker registers them at its start, by default).
 */
export function searchAttributesAtStart<K extends WorkflowType>(
  type: K,
  input: Workflows[K][0],
): SearchAttributePair[] {
  return searchPairs(openingSearch(type, input));
}

/** The server's reason, when a start was refused because the namespace does not know our search attributes. */
function refusalOf(err: unknown): string | undefined {
  // The client's "Failed to start Workflow" carries the server's reason as its cause.
  const reason = err instanceof Error ? String((err.cause as Error | undefined)?.message ?? err.message) : '';
  return /search attribute Dataops/i.test(reason) ? reason : undefined;
}

/**
 * Runs `start` with `pairs` (a run's first search attributes), or, when the namespace refuses them, again without
 * them: such a refusal started nothing (the attributes are not registered, or were registered moments ago and the
 * frontend does not know them yet), and the run then sets them itself as it goes. `refused` hears the server's reason.
 */
export async function startWithSearchAttributes<T>(
  pairs: SearchAttributePair[],
  start: (extra: { typedSearchAttributes?: SearchAttributePair[] }) => Promise<T>,
  refused: (reason: string) => void,
): Promise<T> {
  try {
    return await start({ typedSearchAttributes: pairs });
  } catch (err) {
    const reason = refusalOf(err);
    if (reason === undefined) throw err;
    refused(reason);
    return start({});
  }
}
