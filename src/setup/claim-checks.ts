/**
 * The worker's claim-check store, from its configuration: the local directory, or the object store with the local
 * directory beside it for `local:` references written before the move. The retention rule is applied at start: the
 * local directory is pruned (then daily); on the object store, the worker sets the bucket's lifecycle rule for its
 * prefix, and refuses to start if it may not, since blobs would otherwise be kept forever without anyone knowing.
 * A bucket that is missing or refuses the worker (probed by writing and reading a small document: the permissions
 * the activities need, no more) stops it at start, not at the first promotion.
 */
import {
  LocalDirectoryBlobStore,
  SchemeRoutedBlobStore,
  retainLocalBlobs,
  type BlobStore,
} from '../claim-check/blob-store.js';
import { BlobStoreRefused } from '../claim-check/errors.js';
import { ConfigError } from '../config/env.js';
import { loadS3BlobStore } from './optional-packages.js';
import type { WorkerConfig } from '../config/worker.js';

export interface ClaimChecks {
  store: BlobStore;
  close(): void;
}

type Log = (message: string, meta: Record<string, unknown>) => void;

export async function openClaimChecks(
  config: Pick<WorkerConfig, 'blobDir' | 'blobRetentionDays' | 'objectStore'>,
  log: Log,
): Promise<ClaimChecks> {
  const days = config.blobRetentionDays;
  const local = new LocalDirectoryBlobStore(config.blobDir);
  const stopLocal = days
    ? retainLocalBlobs(config.blobDir, days, (removed) =>
        log('removed claim-check blobs past their retention', { removed, days }),
      )
    : () => undefined;
  if (!config.objectStore) return { store: local, close: stopLocal };

  const { S3BlobStore } = await loadS3BlobStore();
  const s3 = new S3BlobStore(config.objectStore);
  const close = () => {
    stopLocal();
    s3.close();
  };
  try {
    await s3.probe();
  } catch (err) {
    // Refused (no bucket, no access): no claim check could ever be written, so the worker does not start.
    // Unavailable: it may pass, and the activities retry through it.
    if (err instanceof BlobStoreRefused) {
      close();
      throw new ConfigError([`DATAOPS_BLOB_STORE: ${err.message}`]);
    }
    log('the claim-check object store did not answer at start; activities will retry', {
      store: s3.describe(),
      error: (err as Error).message,
    });
  }
  if (days) {
    try {
      if (await s3.ensureRetention(days)) log('set the claim-check lifecycle rule', { store: s3.describe(), days });
    } catch (err) {
      close();
      throw new ConfigError([
        `DATAOPS_BLOB_RETENTION_DAYS: cannot set the lifecycle rule of ${s3.describe()} (${(err as Error).message}): ` +
          'grant the worker s3:GetLifecycleConfiguration and s3:PutLifecycleConfiguration on the bucket, or unset ' +
          'DATAOPS_BLOB_RETENTION_DAYS and set the expiry rule on the prefix yourself',
      ]);
    }
  }
  return { store: new SchemeRoutedBlobStore(s3, { s3, local }), close };
}
