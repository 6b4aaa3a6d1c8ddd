/**
 * What a locked submission answers when another one holds its target (src/activities/target-lock.ts). Pure, so the workflows that
 * read the answer can import it.
 */
export interface LockHeld {
  lockHeldBy: string;
  /** How long to wait before asking again, when the holder is known to keep it a while. @default the caller's backoff */
  retryAfterMs?: number;
}

/** A locked activity's answer: its result, or the lock's holder; an unlocked one's is its result. */
export type Locked<I, T> = I extends { lock: string } ? T | LockHeld : T;

export const isLockHeld = (r: unknown): r is LockHeld => typeof r === 'object' && r !== null && 'lockHeldBy' in r;
