/**
 * What the tarball carries, read from `npm pack --dry-run` without installing it: only what a consumer can reach (the
 * JavaScript its `exports` and `bin` load, with their types and source maps), source maps that carry their sources
 * (the TypeScript is not shipped), the docs the README links to, and a `prepack` that builds no workflow bundle
 * (they are not shipped: a team's worker bundles its own workflows with ours).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { before, describe, test } from 'node:test';
import { packageRoot } from '../../src/local/package-root.js';

const root = packageRoot();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { default: string }>;
  bin: Record<string, string>;
  scripts: Record<string, string>;
};

/** The relative modules a compiled file loads: static imports and exports, and dynamic imports of a literal. */
function importsOf(file: string): string[] {
  const code = readFileSync(join(root, file), 'utf8');
  const found = [
    ...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*(?:\/\*.*?\*\/\s*)?|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g),
  ];
  return found.map((m) => normalize(join(dirname(file), m[1]!)));
}

describe('the tarball', () => {
  let files: string[];
  before(() => {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], { cwd: root, encoding: 'utf8' }),
    ) as { files: { path: string }[] }[];
    files = packed[0]!.files.map((f) => f.path);
  });

  test('carries only JavaScript its exports and bins reach (or its types), each with its types and source map', () => {
    const entries = [
      ...Object.values(pkg.exports).flatMap((e) => (typeof e === 'string' ? [] : [e.default])),
      ...Object.values(pkg.bin),
    ].map((e) => normalize(e));
    // What runs (each .js and what it imports), and what a consumer's compiler reads (each .d.ts and what it imports).
    const reached = new Set<string>();
    const queue = [...entries, ...entries.map((e) => e.replace(/\.js$/, '.d.ts'))];
    for (let file = queue.pop(); file; file = queue.pop()) {
      if (reached.has(file)) continue;
      reached.add(file);
      assert.ok(files.includes(file), `${file} is loaded, so it must be packed`);
      queue.push(...importsOf(file).map((f) => (file.endsWith('.d.ts') ? f.replace(/\.js$/, '.d.ts') : f)));
    }
    for (const f of [...reached]) if (f.endsWith('.d.ts')) reached.add(f.replace(/\.d\.ts$/, '.js'));
    const js = files.filter((f) => f.endsWith('.js'));
    assert.deepEqual(
      js.filter((f) => !reached.has(f)),
      [],
      'packed JavaScript no entry point loads',
    );
    for (const f of js)
      for (const also of ['.d.ts', '.js.map']) assert.ok(files.includes(f.replace(/\.js$/, also)), `${f}: ${also}`);
  });

  test('each source map carries its sources', () => {
    for (const map of files.filter((f) => f.endsWith('.map'))) {
      const m = JSON.parse(readFileSync(join(root, map), 'utf8')) as { sources: string[]; sourcesContent?: unknown[] };
      assert.equal(m.sourcesContent?.length, m.sources.length, `${map}: sourcesContent`);
      assert.ok(
        m.sourcesContent.every((c) => typeof c === 'string' && c.length > 0),
        `${map}: every source's text`,
      );
    }
  });

  test("every link of the README resolves inside the package, and the docs' links to one another", () => {
    const linked = (doc: string) =>
      [...readFileSync(join(root, doc), 'utf8').matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)]
        .map((m) => m[1]!)
        .filter((l) => !/^[a-z]+:/i.test(l))
        .map((l) => normalize(join(dirname(doc), l)));
    for (const l of linked('README.md')) assert.ok(files.includes(l), `README.md links to ${l}, which is not packed`);
    for (const doc of files.filter((f) => f.startsWith('docs/') && f.endsWith('.md')))
      for (const l of linked(doc).filter((x) => x.endsWith('.md')))
        assert.ok(files.includes(l), `${doc} links to ${l}, which is not packed`);
  });

  test('prepack builds the JavaScript only: no workflow bundle, which the tarball does not carry', () => {
    assert.doesNotMatch(pkg.scripts.prepack ?? '', /bundle|npm run build$/);
    assert.deepEqual(
      files.filter((f) => /bundle/.test(f)),
      [],
    );
  });
});
