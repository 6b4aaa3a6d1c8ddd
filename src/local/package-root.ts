/** Finds the package root and the versions of the local servers (Temporal, the TestGen peer) pinned in package.json. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory of this project's package.json, found from this module's location (works from src/ and dist/). */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string };
      if (pkg.name === 'dataops-temporal') return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`package.json of dataops-temporal not found above ${from}`);
    dir = parent;
  }
}

export interface PinnedVersions {
  /** The Temporal TypeScript SDK version, shared by every @temporalio/* dependency. */
  sdk: string;
  /** The Temporal CLI (dev server) version, built from the Go module proxy. */
  cli: string;
  /** The Java time-skipping test server version, from Maven Central. */
  testServer: string;
  /** The whole Temporal CLI a test runs as an outside caller (the newest `go install` builds). */
  callerCli: string;
  /** The TestGen version the peer tests run against, from PyPI. */
  testgen: string;
  /** The moto server version the object-store tests run against, from PyPI. */
  objectStore: string;
}

/** The versions pinned in package.json: the one place where they are set. */
export function pinnedVersions(root: string = packageRoot()): PinnedVersions {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    devDependencies?: Record<string, string>;
    config: {
      temporalCli: string;
      temporalTestServer: string;
      temporalCallerCli: string;
      testgen: string;
      objectStore: string;
    };
  };
  // The SDK is a peer of the package; the version it is developed and tested with is pinned among its dev dependencies.
  const sdk = pkg.devDependencies?.['@temporalio/client'];
  if (!sdk) throw new Error('package.json has no @temporalio/client dev dependency');
  const {
    temporalCli: cli,
    temporalTestServer: testServer,
    temporalCallerCli: callerCli,
    testgen,
    objectStore,
  } = pkg.config;
  return { sdk, cli, testServer, callerCli, testgen, objectStore };
}
