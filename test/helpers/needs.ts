/**
 * Test files whose tests need a peer outside this process: TestGen, the S3 server, the Python example's environment.
 * Outside CI a missing peer skips them, and the skip says why and how to install it. Under CI=true nothing may be
 * skipped for a missing peer: the suite then holds one failing test that names what is missing and the command that
 * installs it, so a CI machine whose install went wrong cannot pass without the real peers.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

export interface Need {
  /** What the tests need, as a reader knows it: "TestGen 5.134.0 (the quality-job API's reference)". */
  what: string;
  /** Why it is missing here, or undefined when it is there. */
  missing: string | undefined;
  /** The command that installs it. */
  install: string;
}

/**
 * The need of a peer that an installer puts in `dir` (its `.complete` marks a finished install): met there, or by
 * the server you run that `useVar` names; `skipVar=1` says to skip it (refused by CI).
 */
export function installedNeed(o: {
  what: string;
  install: string;
  dir: string;
  skipVar: string;
  useVar: string;
}): Need {
  const missing =
    process.env[o.skipVar] === '1'
      ? `${o.skipVar}=1`
      : process.env[o.useVar] || existsSync(join(o.dir, '.complete'))
        ? undefined
        : `not installed in ${o.dir}`;
  return { what: o.what, missing, install: o.install };
}

/** True when this run is CI's (`CI=true`, as `.ci/run` runs): a missing peer fails instead of skipping. */
export const underCi = () => process.env.CI === 'true';

/** The message of a missing peer, for a skip and for a failure alike. */
export const missingMessage = (need: Need) => `${need.what} is missing: ${need.missing} (install it: ${need.install})`;

/**
 * The options and body of a suite that needs `need`, for `describe(name, ...needing(need, fn))`: `fn` when it is met;
 * otherwise skipped, saying why (outside CI), or one failing test that names it (under CI=true). The caller calls
 * `describe` itself, so the run names its file beside the skip.
 */
export function needing(need: Need, fn: () => void): [{ skip?: string }, () => void] {
  if (need.missing === undefined) return [{}, fn];
  if (!underCi()) return [{ skip: missingMessage(need) }, fn];
  return [
    {},
    () => {
      test(`needs ${need.what}`, () => {
        throw new Error(`CI=true, so this cannot be skipped: ${missingMessage(need)}`);
      });
    },
  ];
}
