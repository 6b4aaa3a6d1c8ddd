/** The simulator context every engine and route shares: seed, state, clock, deployment variants and lookups. */
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
  /** A completed test run shows `score: null` this long, as TestGen before its roll-up job has run. @default 0 */
  scoreRollupMs: number;
  /** `false`: job objects carry no `table_group_id` / `test_suite_id`, as TestGen 5.134's. @default true */
  listingTargets: boolean;
}

export const DEFAULT_VARIANTS: SimVariants = {
  summaryShape: 'spec',
  orderIdKey: 'order_id',
  strictErrorShape: 'nested',
  omitExportVersion: false,
  apiAuth: 'session',
  scoreScale: 'fraction',
  scoreRollupMs: 0,
  listingTargets: true,
};

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
  groups: Map<string, SeedTableGroup>;
  kitchens: Map<string, SeedKitchen>;
}
