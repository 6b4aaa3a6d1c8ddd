/**
 * `npm run bench:report [-- <bench:scale flags>]`: runs `npm run bench` and `npm run bench:scale` once each, on this
 * machine, and writes their tables into docs/benchmarks.md between its markers. The document holds the current
 * figures only; earlier ones are in git history. Without flags, bench:scale runs DEFAULT_SCALE_ARGS.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { renderReport, replaceReport } from './report-text.js';

export const DEFAULT_SCALE_ARGS = ['--n', '100', '--same-target', '--bound', '6', '--capacity', '1000'];

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const root = here('../..');

function run(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      process.stdout.write(chunk);
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${script} exited with ${code}`))));
  });
}

async function main(): Promise<void> {
  const scaleArgs = process.argv.slice(2).length ? process.argv.slice(2) : DEFAULT_SCALE_ARGS;
  const benchOut = await run(here('./run.js'), []);
  const scaleOut = await run(here('./scale/run.js'), scaleArgs);
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim();
  const machine = `${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const date = new Date().toISOString().slice(0, 10);
  const path = `${root}/docs/benchmarks.md`;
  const block = renderReport({ benchOut, scaleOut, scaleArgs, commit, machine, date });
  // Formatted as `npm run lint` checks it, so that a fresh report passes lint as written.
  const options = { ...(await prettier.resolveConfig(path)), filepath: path };
  writeFileSync(path, await prettier.format(replaceReport(readFileSync(path, 'utf8'), block), options));
  console.log(`\nwrote the tables into ${path}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
