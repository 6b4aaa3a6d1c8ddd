#!/usr/bin/env node
// Refuses, before anything is built or installed, a Node.js the package does not support (package.json
// "engines.node"), saying which it needs and the command that installs one from the npm registry. `npm start` runs it
// first (its `prestart`): on an older Node, npm itself only warns (EBADENGINE) and the demo would fail later, unclear.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** Whether `version` (e.g. 22.12.0) satisfies `range`: alternatives of `^X[.Y[.Z]]` and `>=X[.Y[.Z]]`, joined by `||`. */
export function supports(version, range) {
  const parts = (v) =>
    v
      .replace(/^v/, '')
      .split('.')
      .map((n) => Number(n) || 0);
  const atLeast = (a, b) => {
    for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
    return true;
  };
  const v = parts(version);
  return range.split('||').some((alt) => {
    const m = /^\s*(\^|>=)\s*([\d.]+)\s*$/.exec(alt);
    if (!m) throw new Error(`unsupported engines range: ${alt}`);
    const min = parts(m[2]);
    return m[1] === '>=' ? atLeast(v, min) : v[0] === min[0] && atLeast(v, min);
  });
}

/** The message for an unsupported Node, or undefined. */
export function refusal(version, range) {
  if (supports(version, range)) return undefined;
  const wanted = range
    .split('||')
    .map((alt) => alt.trim())
    .map((alt) =>
      alt.startsWith('^') ? `${alt.slice(1)} or a later ${alt.slice(1).split('.')[0]}` : `${alt.slice(2)} or later`,
    )
    .join(', or ');
  return [
    `This needs Node.js ${wanted} (package.json "engines": ${range}); this is Node.js ${version}.`,
    'Install one from the npm registry and run again with it first on the PATH:',
    '  PATH="$(bash scripts/install-node.sh 24):$PATH" npm start',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const range = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node;
  const message = refusal(process.versions.node, range);
  if (message) {
    console.error(message);
    process.exit(1);
  }
}
