/**
 * A controllable clock: real time plus an offset that tests and demos can advance. A manual clock stands still
 * between advances, for tests that assert exact boundaries.
 */
export class SimClock {
  private offsetMs: number;
  private readonly frozenAt: number | undefined;

  constructor(offsetMs = 0, manual = false) {
    this.offsetMs = offsetMs;
    this.frozenAt = manual ? Date.now() : undefined;
  }

  now(): number {
    return (this.frozenAt ?? Date.now()) + this.offsetMs;
  }

  iso(ms: number = this.now()): string {
    return new Date(ms).toISOString();
  }

  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`cannot advance the clock by ${ms} ms`);
    this.offsetMs += ms;
    return this.now();
  }

  get offset(): number {
    return this.offsetMs;
  }
}
