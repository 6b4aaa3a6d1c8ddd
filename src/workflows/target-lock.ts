/**
 * The per-target lock's workflow type (src/activities/target-lock.ts). A lock is held while its delayed start is
 * pending and is released by terminate, so it normally never runs; if its delay passes with nobody releasing it (its
 * owner's worker died for good), it runs once here and completes, which frees the lock.
 */
export async function targetLock(): Promise<void> {
  // Nothing to do: completing is the release.
}
