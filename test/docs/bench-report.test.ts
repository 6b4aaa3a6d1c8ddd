/**
 * `npm run bench:report` writes the benchmarks' current tables into docs/benchmarks.md between its markers, and only
 * there: checked on the text of one real run of each benchmark's output shape, without running a benchmark.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { BEGIN, END, renderReport, replaceReport } from '../../bench/report-text.js';
import { root } from '../helpers/test-command.js';

const benchOut = [
  'client: 200 sequential calls  keep-alive 97.6 ms  fresh connections 109.3 ms  fresh/keep-alive time 1.12×',
  'import scaling 5k → 20k        1.00× time per definition (1.0 = linear)',
].join('\n');
const scaleOut = [
  '[bench:scale 0.0 s] starting the dev server and the simulator',
  '| 10 | 12.7 s / 12.2 s = **1.05×** | progress line, not a summary |',
  'jobs: pending 0.5 s, claimed 0.5 s, running 5 s; polls every 1 s',
  '',
  '| N | wall: worker / loop | failures (worker / loop) |',
  '|---|---|---|',
  '| 10 | 12.7 s / 12.2 s = **1.05×** | 0 / 0 |',
  '',
  'prose between the tables',
  '',
  '| N | side | actions / pipeline |',
  '|---|---|---|',
  '| 10 | ours | 15.6 |',
].join('\n');

test('the report holds both benchmarks as tables, with what ran and where', () => {
  const block = renderReport({
    benchOut,
    scaleOut,
    scaleArgs: ['--n', '10'],
    commit: 'abc1234',
    machine: '2 cores',
    date: 'D',
  });
  assert.ok(block.startsWith(BEGIN) && block.endsWith(END));
  assert.match(block, /Measured D at commit `abc1234` on 2 cores\./);
  assert.match(
    block,
    /\| client: 200 sequential calls \| keep-alive 97\.6 ms \| fresh connections 109\.3 ms \| fresh\/keep-alive time 1\.12× \|/,
  );
  assert.match(block, /`npm run bench:scale -- --n 10` \(jobs: pending 0\.5 s/);
  assert.match(block, /\| N \| wall: worker \/ loop \| failures \(worker \/ loop\) \|\n\|---\|---\|---\|\n\| 10 \|/);
  assert.match(block, /\| 10 \| ours \| 15\.6 \|/);
  assert.doesNotMatch(block, /progress line|prose between/, 'only the summary tables');
});

test('the report replaces what is between the markers and nothing else; a document without them is refused', () => {
  const doc = `# B\n\nmethod\n\n${BEGIN}\nold figures\n${END}\n\nafter\n`;
  assert.equal(replaceReport(doc, `${BEGIN}\nnew\n${END}`), `# B\n\nmethod\n\n${BEGIN}\nnew\n${END}\n\nafter\n`);
  assert.throws(() => replaceReport('# B\n', 'x'), /no bench:report markers/);
});

test('docs/benchmarks.md holds one report, between its markers', () => {
  const doc = readFileSync(`${root}docs/benchmarks.md`, 'utf8');
  assert.equal(doc.split(BEGIN).length, 2);
  assert.equal(doc.split(END).length, 2);
  assert.match(doc.slice(doc.indexOf(BEGIN)), /Measured \d{4}-\d\d-\d\d at commit `[0-9a-f]+`/);
});
