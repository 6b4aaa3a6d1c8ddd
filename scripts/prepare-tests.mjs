#!/usr/bin/env node
// Brings what the tests run on up to date before `npm test` (its `pretest`), doing only what changed since last time:
//   - the build: an incremental `tsc` when a source changed, the removal of outputs whose source is gone (or a deleted
//     test would still run), and the workflow bundles again only when src/ or the dependencies changed;
//   - the installers (scripts/install-*.sh), each skipped while a stamp says it succeeded with the same inputs: its
//     script, package.json (the pinned versions), the Python requirements (the example's, the lineage checks') and the DATAOPS_* / TEMPORAL_* / CI
//     environment. An installer that could not install a peer (outside CI, where that is a skip) writes no stamp, so it
//     runs again next time. `npm run install-<name>` always runs it.
// `npm run build` is still the clean build; this is the quick path of the test command.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
const cache =
  process.env.DATAOPS_TEMPORAL_CACHE_DIR ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'dataops-temporal');
const INSTALLERS = ['temporal', 'testgen', 'python-example', 'object-store', 'openlineage'];
const SOURCE_DIRS = ['src', 'test', 'bench', 'scripts'];

const say = (line) => console.error(`[prepare-tests] ${line}`);

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** A hash of the files' paths and contents. */
function hashOf(files, extra = '') {
  const hash = createHash('sha256').update(extra);
  for (const file of [...files].sort()) hash.update(`${relative(root, file)}\0`).update(readFileSync(file));
  return hash.digest('hex');
}

function run(command, args, env = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
}

/**
 * Removes the compiled outputs under `outDir` (its `dirs`) whose TypeScript source under `sourceRoot` no longer exists,
 * and returns how many. Without it a deleted test file's compiled copy would still run.
 */
export function pruneStale(sourceRoot, outDir, dirs = SOURCE_DIRS) {
  let removed = 0;
  for (const dir of dirs)
    for (const out of filesUnder(join(outDir, dir))) {
      const match = /^(.*)\.(js|d\.ts)(\.map)?$/.exec(relative(outDir, out));
      if (match && !existsSync(join(sourceRoot, `${match[1]}.ts`))) {
        rmSync(out);
        removed++;
      }
    }
  return removed;
}

function build() {
  const stampFile = join(dist, '.build-stamp.json');
  const lock = ['package.json', 'package-lock.json'].map((f) => join(root, f));
  const configs = ['tsconfig.json', 'tsconfig.build.json'].map((f) => join(root, f));
  const stamp = {
    sources: hashOf([...SOURCE_DIRS.flatMap((d) => filesUnder(join(root, d))), ...configs, ...lock]),
    workflows: hashOf([...filesUnder(join(root, 'src')), ...lock, join(root, 'scripts', 'bundle-workflows.mjs')]),
  };
  const before = readJson(stampFile);
  if (before.sources === stamp.sources) return say('build: nothing changed');
  const started = Date.now();
  run(process.execPath, [
    join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    'tsconfig.build.json',
    '--incremental',
    '--tsBuildInfoFile',
    join(dist, '.tsbuildinfo'),
  ]);
  const removed = pruneStale(root, dist);
  if (removed > 0) say(`removed ${removed} outputs whose source is gone`);
  const bundles = ['workflow-bundle.js', 'workflow-bundle-otel.js'].every((f) => existsSync(join(dist, f)));
  if (before.workflows !== stamp.workflows || !bundles)
    run(process.execPath, [join(root, 'scripts', 'bundle-workflows.mjs')]);
  writeFileSync(stampFile, JSON.stringify(stamp));
  say(`build: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

function install(name) {
  const script = join(root, 'scripts', `install-${name}.sh`);
  const environment = Object.entries(process.env)
    .filter(([key]) => key === 'CI' || key.startsWith('DATAOPS_') || key.startsWith('TEMPORAL_'))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key}=${value}`)
    .join('\n');
  const inputs = [script, join(root, 'scripts', 'install-common.sh'), join(root, 'package.json')];
  if (name === 'temporal') inputs.push(join(root, 'tools', 'devserver', 'main.go'));
  const requirements = [
    join(root, 'examples', 'python', 'requirements.txt'),
    join(root, 'test', 'lineage', 'requirements.txt'),
  ];
  const key = hashOf([...inputs, ...requirements], environment);
  const stamp = join(cache, 'stamps', `install-${name}`);
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === key) return;
  mkdirSync(join(cache, 'stamps'), { recursive: true });
  run('bash', [script], { DATAOPS_INSTALL_STAMP: stamp, DATAOPS_INSTALL_KEY: key });
}

// Run as a script (npm's pretest), not when a test imports pruneStale.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  build();
  for (const name of INSTALLERS) install(name);
}
