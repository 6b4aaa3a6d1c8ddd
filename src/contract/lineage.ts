/**
 * Lineage: what a workflow tells the lineage activity at each of its transitions (its own run and its remote jobs').
 * Workflow-safe: no zod (our custom facets' schemas are in lineage-facets.ts). The OpenLineage events themselves are
 * built by the activity (src/lineage/).
 */
import type { ProfilingSummary, TestRunSummary } from './types.js';

export type LineageEventType = 'START' | 'COMPLETE' | 'FAIL' | 'ABORT';

/** The workflow run a transition belongs to: the parent of its jobs' runs. */
export interface LineageWorkflow {
  workflowType: string;
  workflowId: string;
  runId: string;
  /** What it works on: the input's table group, test suite, kitchen, recipe, variation, suites of a promotion. */
  target: Record<string, string>;
}

/** What a run has produced that a catalog shows: summaries, the gates' verdict, an order id. */
export interface LineageFacts {
  profiling?: ProfilingSummary;
  testRun?: TestRunSummary;
  gates?: { passed: boolean; violations: string[] };
  orderId?: string;
  /** The order's run, as its wait saw it end (its status), with its page where the deployment has one. */
  orderRun?: { orderRunId: string; url?: string; status?: string };
}

/** The roles whose completed jobs' tables are read (columns, results): their events, and their run's end, list them. */
export const READS_TABLES: ReadonlySet<string> = new Set(['profiling', 'test_run']);

/** One transition: of the workflow's own run (no `job`), or of one of its remote jobs. */
export interface LineageTransition {
  eventType: LineageEventType;
  /** When it happened (workflow time, or the job's own start and end where the service tells them). */
  at: string;
  workflow: LineageWorkflow;
  job?: { role: string; jobId: string; url?: string };
  facts?: LineageFacts;
  /** FAIL: what went wrong. */
  error?: string;
  /** FAIL: the failure's type (JobFailed, OrderFailed, QualityGateFailed, NotFound, …), which says what failed. */
  failureType?: string;
  /** The run's own end: its jobs that completed, whose tables its event lists as its inputs. */
  inputJobs?: { role: string; jobId: string }[];
}
