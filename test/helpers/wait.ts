/**
 * Waits until `check` returns a value (not undefined, null or false), polling a bounded number of times. A guard against a
 * hang, never an assertion on speed: the bound is generous and only a stuck test reaches it.
 */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  { tries = 1_200, delayMs = 25 }: { tries?: number; delayMs?: number } = {},
): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    await new Promise((r) => setTimeout(r, delayMs));
  }
  throw new Error(`gave up waiting for ${what}`);
}
