/** What activities are built from: one service client per credential profile, the claim-check store, the export directory. */
import type { ServiceClient } from '../api/index.js';
import type { ScoreScale } from '../vocabulary.js';
import type { BlobStore } from '../claim-check/blob-store.js';
import { UnknownProfile } from './errors.js';
import { beatingWhile } from './heartbeats.js';
import type { JobLinks } from '../contract/job-links.js';
import type { LineageDeps } from './lineage.js';

/** A credential profile configured on the worker: a client logged in as one account. Never in workflow input. */
export interface ServiceProfile {
  client: ServiceClient;
  /** Project of the profile's table groups and suites; lets a lost submission be found in the job listing. */
  projectCode?: string;
  /**
   * Nothing else writes, with this account, to this profile's targets while a send of ours is in flight (no other
   * client; ours one at a time, as the submitters send them): a lost answer may then be taken to be the one new job
   * (or order) on its target. @default false: only a job carrying the submission's id is taken; another is named in
   * an `…OutcomeUnknown` failure
   */
  soleWriter?: boolean;
  /** How the deployment reports scores. @default 'fraction' (TestGen 5.134) */
  scoreScale?: ScoreScale;
}

export interface ActivityDeps {
  /** Credential profiles by name; workflows name one (default: "default"). */
  profiles: Record<string, ServiceProfile>;
  /** Claim-check store for export files and large import results. Required by the export/import activities. */
  store?: BlobStore;
  /**
   * How long after sending a submission the service may still commit it (a request it holds past our timeout): a
   * lost answer is looked up again after this, before anything is sent twice. Set it above the service's own request
   * timeout. @default 60 seconds
   */
  submitSettleMs?: number;
  /** Import items are returned inline up to this JSON size, else stored. @default 256 KiB */
  inlineItemsMaxBytes?: number;
  /** Directory where export workflows write files (destinations are relative to it). @default none: writing refused */
  exportDir?: string;
  /** Temporal Web UI base; test runs then carry a link back to their workflow. @default none */
  temporalUiUrl?: string;
  /** Where OpenLineage events go (src/lineage/), and what they are named after. @default none: no events */
  lineage?: LineageDeps;
  /** Each job's page in the service's UI, by role, told to the workflows at their input check. @default none */
  jobLinks?: JobLinks;
  /**
   * Whether workflows set the project's search attributes (src/contract/search-attributes.ts), which must then be
   * registered in the namespace: the worker checks them at start. @default false
   */
  searchAttributes?: boolean;
  /**
   * With searchAttributes: resolves once the namespace has them (registering them where the worker may), awaited by
   * each input check before a workflow sets any; rejects with SearchAttributesMissing naming what is missing and the
   * fix. @default none: the namespace is taken as ready (a worker that checked it at start)
   */
  namespaceReady?: () => Promise<void>;
  /**
   * How long the claim-check store keeps a blob (its retention rule): a promotion whose approval could outlast it is
   * refused at its input check. @default kept forever
   */
  claimCheckRetentionMs?: number;
  /**
   * The task queue this worker serves the heartbeating waits on, told to each workflow by its input check: the workflow
   * schedules its waits there. @default `<the workflow's task queue>-waits`
   */
  waitsTaskQueue?: string;
}

export interface ActivityContext {
  profile(name: string): ServiceProfile;
  store(): BlobStore;
  submitSettleMs: number;
  inlineItemsMaxBytes: number;
  exportDir: string | undefined;
  temporalUiUrl: string | undefined;
}

export function activityContext(deps: ActivityDeps): ActivityContext {
  return {
    profile(name) {
      const p = Object.hasOwn(deps.profiles, name) ? deps.profiles[name] : undefined;
      if (!p)
        throw new UnknownProfile(
          `credential profile '${name}' is not configured on this worker (configured: ${Object.keys(deps.profiles).join(', ') || 'none'})`,
        );
      return p;
    },
    store() {
      const { store } = deps;
      if (!store) throw new Error('no blob store configured on this worker for export and import');
      // A large file may take longer to store or read than the activity's heartbeat timeout: it beats meanwhile.
      return {
        putJson: (value) => beatingWhile(store.putJson(value)),
        getJson: (ref) => beatingWhile(store.getJson(ref)),
      };
    },
    submitSettleMs: deps.submitSettleMs ?? 60_000,
    inlineItemsMaxBytes: deps.inlineItemsMaxBytes ?? 256 * 1024,
    exportDir: deps.exportDir,
    temporalUiUrl: deps.temporalUiUrl,
  };
}
