/**
 * The per-target lock's workflow type (src/activities/target-lock.ts). A lock is held while its delayed start is
 * pending and is released by terminate, so it normally never runs; if its delay passes with nobody releasing it (its
 * owner's worker died for good), it runs once here and completes, which frees the lock.
 *
 * A server that does not honour start delays (older than the feature, or a test server) runs it at once: it then
 * holds the lock itself, sleeping until the lock's expiry, so the lock still excludes a second holder until released.
 */
import { sleep } from '@temporalio/workflow';

export interface TargetLockInput {
  /** When the lock expires (epoch ms): the end of its start delay. */
  expiresAtMs: number;
}

async function targetLock(input?: TargetLockInput): Promise<void> {
  const left = (input?.expiresAtMs ?? 0) - Date.now();
  if (left > 0) await sleep(left);
}

export { targetLock as 'dataops.targetLock' };
