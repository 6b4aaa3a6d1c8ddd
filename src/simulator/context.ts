/** The simulator context every engine and route shares: seed, state, clock, deployment variants and lookups. */
import { z } from 'zod';
import type { SimClock } from './clock.js';
import type { Role, Seed, SeedKitchen, SeedTableGroup } from './seed.js';
import type { SimStateData } from './state.js';

/** Deployment variants the simulator can play (see shared/spec/deployed-variants.md). */
export interface SimVariants {
  /** `spec`: result.result_counts / result.issue_counts; `deployed`: result.tests / result.issues. @default 'spec' */
  summaryShape: 'spec' | 'deployed';
  /** Key of the order id in the order-create response. @default 'order_id' */
  orderIdKey: 'serving_hid' | 'order_id' | 'serving_chronos_id';
  /** Strict-import 400 body: nested under `detail` (deployed) or top level (spec). @default 'nested' */
  strictErrorShape: 'nested' | 'top-level';
  /** Omit `version` from export files (one deployed version does). @default false */
  omitExportVersion: boolean;
  /** `session`: /api/v1 takes the /v2/login token; `separate`: only tokens issued for the API. @default 'session' */
  apiAuth: 'session' | 'separate';
  /** `fraction`: result.score from 0 to 1 (TestGen 5.134); `percent`: 0 to 100. @default 'fraction' */
  scoreScale: 'fraction' | 'percent';
  /** A completed test or profiling run shows `score: null` this long, as TestGen before its roll-up job has run. @default 0 */
  scoreRollupMs: number;
  /** `true`: job objects carry `table_group_id` / `test_suite_id`; TestGen 5.134's do not. @default false */
  listingTargets: boolean;
  /**
   * `true`: a profiling run's record shows `table_group_id: null` until the run has started, as TestGen 5.134's does
   * (its profiling-run row is written when the run starts). @default false
   */
  runTargetOnceStarted: boolean;
  /**
   * `first-profile`: a completed profiling run queues test generation (`source: system`) only when it is the table
   * group's first completed one, as TestGen 5.134; `every-profile`: after each. @default 'first-profile'
   */
  generationFollows: 'first-profile' | 'every-profile';
  /**
   * Jobs that may work at once; the rest wait `queued` (TestGen 5.134 limits in-process engines this way,
   * `TG_MAX_CONCURRENT_IN_PROCESS_RUNS`, 1 by default). 0: unlimited, as for its other engines. @default 0
   */
  runSlots: number;
  /**
   * A new order run shows in its order's run list (`GET /v2/order/servings`) only this long after it was created,
   * as a deployment that plans runs asynchronously does. @default 0
   */
  orderRunsListedAfterMs: number;
  /**
   * `true`: a test run keeps the `metadata` its submission sent and its summary shows it, as TestGen 5.134's does;
   * `false`: neither, as the spec's summary has no such field (a deployment that drops it). @default true
   */
  callerMetadata: boolean;
}

export const DEFAULT_VARIANTS: SimVariants = {
  summaryShape: 'spec',
  orderIdKey: 'order_id',
  strictErrorShape: 'nested',
  omitExportVersion: false,
  apiAuth: 'session',
  scoreScale: 'fraction',
  scoreRollupMs: 0,
  listingTargets: false,
  runTargetOnceStarted: false,
  generationFollows: 'first-profile',
  runSlots: 0,
  orderRunsListedAfterMs: 0,
  callerMetadata: true,
};

/** Variants as a process takes them (`--variants` JSON): any subset, every key and value checked. */
export const SimVariantsInput = z
  .object({
    summaryShape: z.enum(['spec', 'deployed']),
    orderIdKey: z.enum(['serving_hid', 'order_id', 'serving_chronos_id']),
    strictErrorShape: z.enum(['nested', 'top-level']),
    omitExportVersion: z.boolean(),
    apiAuth: z.enum(['session', 'separate']),
    scoreScale: z.enum(['fraction', 'percent']),
    scoreRollupMs: z.number().int().nonnegative(),
    listingTargets: z.boolean(),
    runTargetOnceStarted: z.boolean(),
    generationFollows: z.enum(['first-profile', 'every-profile']),
    runSlots: z.number().int().nonnegative(),
    orderRunsListedAfterMs: z.number().int().nonnegative(),
    callerMetadata: z.boolean(),
  })
  .partial()
  .strict() satisfies z.ZodType<Partial<SimVariants>>;

export interface SimUser {
  username: string;
  role: Role;
  kitchens: string[];
  projects: string[];
}

export interface SimContext {
  seed: Seed;
  state: SimStateData;
  clock: SimClock;
  variants: SimVariants;
  /** Session token lifetime. @default 4 hours */
  tokenLifetimeMs: number;
  /** Lifetime of an access token from the OAuth token endpoint. @default 1 hour (TestGen 5.134) */
  accessTokenLifetimeMs: number;
  groups: Map<string, SeedTableGroup>;
  kitchens: Map<string, SeedKitchen>;
}
