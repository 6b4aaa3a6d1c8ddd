/**
 * Flag parsers of the CLI: durations, bounded numbers, `name=value` overrides, `kitchen/recipe/variation`. Each
 * throws commander's InvalidArgumentError, so the message names the flag; UsageError covers checks after parsing.
 */
import { InvalidArgumentError } from 'commander';

/** Thrown for a usage problem found after parsing (exit 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The units a duration flag takes, largest first, in milliseconds (schedule-spec.ts writes durations back in them). */
export const DURATION_UNITS_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000, ms: 1 } as const;

export function parseDurationMs(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError('expected a duration such as 500ms, 30s, 5m, 2h or 1d');
  const factor = DURATION_UNITS_MS[(m[2] ?? 'ms') as keyof typeof DURATION_UNITS_MS];
  return Math.round(Number(m[1]) * factor);
}

/** A duration that must be above zero (a schedule's interval, its catch-up window): 0 is refused, not dropped. */
export function positiveDurationMs(value: string): number {
  const ms = parseDurationMs(value);
  if (ms < 1) throw new InvalidArgumentError('expected a duration above zero, such as 30s, 5m or 1h');
  return ms;
}

export const intArg =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
    return n;
  };

/** Any text but an empty one: `--cron ''` is refused, not taken for no expression. */
export const nonEmptyArg = (what: string) => (value: string) => {
  if (!value.trim()) throw new InvalidArgumentError(`expected ${what}, got an empty value`);
  return value;
};

/** A time zone by its IANA name (`Europe/Berlin`), as Node's ICU knows them; the server takes the same names. */
export const timeZoneArg = (value: string) => {
  try {
    // In its own spelling: the server looks the name up as given (`europe/berlin` is not found there).
    return new Intl.DateTimeFormat('en', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    throw new InvalidArgumentError('expected an IANA time zone such as Europe/Berlin or America/New_York');
  }
};

export const numArg = (min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max)
    throw new InvalidArgumentError(`expected a number from ${min} to ${max}`);
  return n;
};

/** `name=value`, collected into an object; values are JSON when they parse as JSON, else strings. */
export const paramArg = (value: string, previous: Record<string, unknown> = {}) => {
  const i = value.indexOf('=');
  if (i < 1) throw new InvalidArgumentError('expected name=value');
  const raw = value.slice(i + 1);
  let parsed: unknown = raw;
  try {
    parsed = JSON.parse(raw);
  } catch {
    /* a plain string */
  }
  return { ...previous, [value.slice(0, i)]: parsed };
};

export const orderArg = (value: string) => {
  const parts = value.split('/');
  if (parts.length !== 3 || parts.some((p) => !p)) throw new InvalidArgumentError('expected kitchen/recipe/variation');
  return { kitchen: parts[0]!, recipe: parts[1]!, variation: parts[2]! };
};
