/**
 * The options every workflow that runs a remote job shares (polling, waiting, cancelling, outages), and the rules
 * across fields they must keep. Durations are integers in milliseconds, so every language can send them.
 */
import { z } from 'zod';
import {
  DEFAULT_CANCEL_TIMEOUT_MS,
  DEFAULT_MAX_WAIT_MS,
  DEFAULT_OUTAGE_TOLERANCE_MS,
  DEFAULT_STATUS_REPORTS,
} from './activity-options.js';

/** A duration or interval in whole milliseconds, at least `min`. */
export const Ms = (min: number) => z.number().int().min(min);

/** How long calls keep retrying through an outage of the service; shared by every workflow. */
export const OutageToleranceMs = Ms(60_000)
  .max(30 * 24 * 3_600_000)
  .default(DEFAULT_OUTAGE_TOLERANCE_MS)
  .describe('Each call keeps retrying through an outage of the service this long before the workflow fails (6 h)');

/** What `cancelTimeoutMs` bounds for an order. */
export const ORDER_STOP_TIMEOUT =
  'For an order: how long a cancelled workflow reads its runs back after the stop (stopping any run still going) ' +
  'until each is seen terminal';

/** Options shared by every workflow that runs a remote job. */
export const JobOptions = z.object({
  profile: z
    .string()
    .min(1)
    .default('default')
    .describe('Credential profile configured on the worker (never credentials)'),
  projectCode: z
    .string()
    .min(1)
    .optional()
    .describe("Project of the table group or suite; lets a lost submission be found. Default: the profile's"),
  cancelRemoteJob: z.boolean().default(true).describe('Cancel the remote job when the workflow is cancelled'),
  waitStrategy: z
    .enum(['auto', 'heartbeat', 'deferrable'])
    .default('auto')
    .describe(
      'heartbeat: short polls in one activity; deferrable: one poll per attempt, no slot held; auto: by expectedDurationMs',
    ),
  expectedDurationMs: Ms(1)
    .default(30 * 60_000)
    .describe('auto picks deferrable from 2 hours on'),
  pollIntervalMs: Ms(100).default(5_000),
  maxPollIntervalMs: Ms(100).default(30_000).describe('At least pollIntervalMs'),
  maxWaitMs: Ms(1_000)
    .default(DEFAULT_MAX_WAIT_MS)
    .describe('Give up waiting for each job after this long: cancel it, and fail JobWaitTimedOut'),
  heartbeatTimeoutMs: Ms(2_000)
    .default(60_000)
    .describe(
      'A waiting worker that stops heartbeating for this long is presumed dead; another one carries on. ' +
        'At least twice pollIntervalMs',
    ),
  maxStatusDurationMs: Ms(1_000)
    .optional()
    .describe(
      'Surface a job that sits in one non-terminal status (e.g. paused, which only a person ends) longer than this',
    ),
  statusReports: z
    .number()
    .int()
    .min(0)
    .max(20)
    .default(DEFAULT_STATUS_REPORTS)
    .describe(
      'How many status changes the wait of each job reports to the workflow, so that the progress query shows them ' +
        'live (the first is the job starting to work; each costs 4 history events, so they are bounded: after the ' +
        'last one, progress shows the status as of that report). 0: none, the job shows pending until it ends',
    ),
  onStatusStuck: z
    .enum(['report', 'fail'])
    .default('report')
    .describe('report: record it in progress, memo and log, and keep waiting; fail: cancel the job and fail JobStuck'),
  cancelTimeoutMs: Ms(1_000)
    .default(DEFAULT_CANCEL_TIMEOUT_MS)
    .describe(
      'How long a workflow that ends while its job runs keeps trying to cancel the job and waits to see it ' +
        `canceled. ${ORDER_STOP_TIMEOUT}`,
    ),
  outageToleranceMs: OutageToleranceMs,
});
export type JobOptions = z.infer<typeof JobOptions>;

/**
 * Rules across fields, which JSON Schema cannot state: each is in the generated schema's `x-rules` (and its
 * description), worded as the worker enforces it, and `test/contract/agreement.test.ts` holds the two to each other.
 */
export const POLLING_RULES = [
  'maxPollIntervalMs >= pollIntervalMs (after defaults)',
  'heartbeatTimeoutMs >= 2 * pollIntervalMs (after defaults)',
];

/** JSON Schema keywords for rules across fields: `x-rules` for tools, the description for people. */
export const rulesMeta = (rules: string[], what: string) => ({
  'x-rules': rules,
  description: `${what}. Rules across fields (not expressible in JSON Schema, enforced by the worker): ${rules.join('; ')}`,
});

export const checkPolling = (
  v: { pollIntervalMs: number; maxPollIntervalMs: number; heartbeatTimeoutMs: number },
  ctx: z.RefinementCtx,
) => {
  if (v.maxPollIntervalMs < v.pollIntervalMs)
    ctx.addIssue({ code: 'custom', path: ['maxPollIntervalMs'], message: 'must be at least pollIntervalMs' });
  if (v.pollIntervalMs * 2 > v.heartbeatTimeoutMs)
    ctx.addIssue({ code: 'custom', path: ['heartbeatTimeoutMs'], message: 'must be at least twice pollIntervalMs' });
};
