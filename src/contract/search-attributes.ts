/**
 * The search attributes our workflows set as they progress, so runs can be found by what they are about
 * (`dataops list --table-group …`, or any visibility query). Keyword attributes of the namespace: registered by
 * `dataops setup search-attributes` (and by the project's own dev-server setup); a worker checks them at start.
 * Zod-free: workflow code imports it.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

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
