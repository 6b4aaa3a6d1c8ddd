/**
 * The names this project registers in a team's worker: every activity type and workflow type starts with `dataops.`.
 * A dot is in no TypeScript, Python, Go or Java identifier, so the functions a team registers beside ours (whose
 * types are their names) cannot collide with them. Part of the 1.0 contract: these names stay.
 */
export const NAME_PREFIX = 'dataops.';

/** A workflow or activity type by its own name: `dataops.` left off (a 0.x type, which had none, as it is). */
export const ownName = (type: string): string => (type.startsWith(NAME_PREFIX) ? type.slice(NAME_PREFIX.length) : type);

/** `fns` with each key prefixed: what a worker registers. */
export type Prefixed<T> = { [K in keyof T & string as `dataops.${K}`]: T[K] };

export function prefixed<T extends object>(fns: T): Prefixed<T> {
  return Object.fromEntries(Object.entries(fns).map(([name, fn]) => [NAME_PREFIX + name, fn])) as Prefixed<T>;
}
