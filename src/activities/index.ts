/**
 * `createActivities(deps)`: every activity, built from the worker's dependencies (clients by credential profile,
 * the claim-check store), under the names a worker registers (`dataops.<name>`, src/contract/names.ts).
 * `activityFunctions(deps)` is the same functions by their own names. Workflows import the `Activities` type only.
 */
import { Context } from '@temporalio/activity';
import { z } from 'zod';
import { activityContext, type ActivityDeps } from './context.js';
import { applyWrite, definitionActivities } from './definitions.js';
import { parseInput, translated } from './errors.js';
import { inputActivities } from './inputs.js';
import { jobActivities } from './jobs.js';
import { lineageActivities } from './lineage.js';
import {
  orderStopActivities,
  sendInTurnActivity,
  settleAskActivity,
  stillAsking,
  submissionActivities,
  submissionWrites,
} from '../exactly-once/index.js';
import { waitingActivities } from './waiting.js';
import { orderActivities, orderWrite } from './orders.js';
import { prefixed } from '../contract/names.js';

export function activityFunctions(deps: ActivityDeps) {
  const ctx = activityContext(deps);
  const jobs = jobActivities(ctx);
  /** Every write a submitter sends, under its asking activity's name: how it is sent, and where. */
  const writes = { ...submissionWrites(ctx), runOrder: orderWrite(ctx), importTestDefinitions: applyWrite(ctx) };
  return {
    /** Checks a profile's credentials early. Returns the user name and the token's expiry, never the token. */
    login: async (raw: { profile?: string } = {}): Promise<{ username: string; expiresAt: string | null }> => {
      const input = parseInput(z.object({ profile: z.string().min(1).default('default') }), raw, 'login');
      return translated(() =>
        ctx.profile(input.profile).client.login({ signal: Context.current().cancellationSignal }),
      );
    },
    ...inputActivities({
      searchAttributes: deps.searchAttributes ?? false,
      ...(deps.namespaceReady ? { namespaceReady: deps.namespaceReady } : {}),
      ...(deps.claimCheckRetentionMs !== undefined ? { claimCheckRetentionMs: deps.claimCheckRetentionMs } : {}),
      ...(deps.waitsTaskQueue ? { waitsTaskQueue: deps.waitsTaskQueue } : {}),
      lineage: deps.lineage?.emitter.enabled ?? false,
      ...(deps.jobLinks && Object.keys(deps.jobLinks).length ? { jobLinks: deps.jobLinks } : {}),
    }),
    ...lineageActivities(ctx, deps.lineage),
    ...orderActivities(ctx),
    ...orderStopActivities(ctx),
    ...submissionActivities(ctx),
    ...waitingActivities(ctx),
    ...jobs,
    ...definitionActivities(ctx),
    stillAsking,
    sendInTurn: sendInTurnActivity(writes),
    settleAsk: settleAskActivity(writes),
  };
}

/** Every activity, named as registered: `dataops.login`, `dataops.waitForJob`, … */
export const createActivities = (deps: ActivityDeps) => prefixed(activityFunctions(deps));

/** The activities by their own names (the workflows call them through ourActivities, which adds the prefix). */
export type Activities = ReturnType<typeof activityFunctions>;
export type { ActivityDeps, ServiceProfile } from './context.js';
export { LocalDirectoryBlobStore, type BlobStore } from '../claim-check/blob-store.js';
export { BlobCorrupt, BlobNotFound } from '../claim-check/errors.js';
export {
  ImportOutcomeUnknown,
  InvalidInput,
  OrderOutcomeUnknown,
  SubmissionOutcomeUnknown,
  UnknownProfile,
  toFailure,
} from './errors.js';
