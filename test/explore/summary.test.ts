/**
 * What a run adds up to, printed at its end, when it is stopped early (SIGINT, SIGTERM), and when its lanes strand:
 * the seeds, the mix, the cancel latency by state (naming the seeds of the slowest cancels, to replay), and each
 * failed seed's replay.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { summary, type SeedOutcome } from './main.js';
import { runProcess } from '../helpers/processes.js';

test('summary counts the seeds, sums the mix, tables the latency and names each failed seed’s replay', () => {
  const outcome = (seed: number, violations: string[], ms: number): SeedOutcome => ({
    seed,
    verdict: { violations, cancelLatency: [{ state: 'pending', ms }] },
    mix: ['kill', `cells:${seed}`],
    ms: 10_000,
  });
  const lines: string[] = [];
  const failed = summary(
    [outcome(1, [], 300), outcome(2, ['bad'], 2_500)],
    61_000,
    { soleWriter: true, calm: false },
    (l: string) => lines.push(l),
  );
  assert.deepEqual(
    failed.map((f) => f.seed),
    [2],
  );
  assert.equal(lines[0], '\n2 seeds in 61 s, 1 failed');
  assert.equal(lines[1], 'schedule mix: cells:1=1, cells:2=1, kill=2');
  assert.equal(
    lines[2],
    'cancel latency by state:\n  pending: n=2 p50=2500 ms p90=2500 ms max=2500 ms, over 2 s: 1 (seeds 2)',
  );
  assert.equal(lines[3], 'failed: npm run explore -- --seed 2 --sole-writer');
});

test('a run whose lanes wait on what nothing can settle says so before Node exits, and fails; an ended one does not', async () => {
  // A lane awaiting a promise that no timer, socket or process will settle: Node would exit at once, with code 0.
  const run = (ended: boolean) =>
    runProcess(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { onStranded } = await import(${JSON.stringify(new URL('./main.js', import.meta.url).href)});
         onStranded(() => ${ended}, () => console.log('the summary so far'));
         void new Promise(() => {}).then(() => console.log('never'));`,
      ],
      {},
    );
  assert.deepEqual(await run(false), { code: 3, out: 'the summary so far\n' });
  assert.deepEqual(await run(true), { code: 0, out: '' });
});
