/**
 * The README's first command, `npm start` (src/demo.ts): on the embedded default, with no account and no
 * configuration, it runs the pipeline and the promotion to the end, exits 0, and leaves nothing behind in the
 * temporary directory; with `--lineage FILE` it writes the run's OpenLineage events there.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { cli } from '../helpers/cli.js';
import { shellBlocks, shellWords } from '../helpers/doc-blocks.js';
import { readEvents } from '../helpers/lineage.js';
import { dist, failIfExited, runScriptInOwnTmp, startProcess } from '../helpers/processes.js';
import { eventually } from '../helpers/wait.js';

test('npm start runs the pipeline and the promotion to the end, then removes its working directory', async () => {
  // What `npm start` runs once it has built the project and installed the dev server (its prestart).
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    scripts: Record<string, string>;
  };
  assert.equal(pkg.scripts.start, 'node dist/src/demo.js');
  const lineage = join(mkdtempSync(join(tmpdir(), 'demo-lineage-')), 'events.jsonl');
  const { code, out, left } = await runScriptInOwnTmp(dist('demo.js'), ['--lineage', lineage]);
  assert.equal(code, 0, out);
  // --lineage: the run's events, valid by the official schemas, its tables named by the simulator's warehouse.
  assert.match(out, new RegExp(`OpenLineage events of this run: appended to ${lineage}`));
  const events = readEvents(lineage);
  const pipelineEnd = events.find((e) => e.job.name.startsWith('dataQualityPipeline.') && e.eventType !== 'START');
  assert.equal(pipelineEnd?.eventType, 'COMPLETE', events.map((e) => `${e.eventType} ${e.job.name}`).join('\n'));
  assert.ok(
    pipelineEnd.inputs.some(
      (i) => i.namespace === 'postgres://warehouse.demo.internal:5432' && i.name === 'demo.sales.orders',
    ),
    JSON.stringify(pipelineEnd.inputs.map((i) => `${i.namespace}/${i.name}`)),
  );
  assert.ok(
    events.some((e) => e.job.name.startsWith('promoteTestDefinitions.')),
    'the promotion too',
  );
  assert.match(out, /pipeline exit code: 0/);
  assert.match(out, /promotion APPLIED \(approved by demo\)/);
  assert.match(out, /stopped the worker, the simulator and the dev server/);
  assert.doesNotMatch(out, /level=WARN/, "the dev server's start-up warnings (a generated cluster id) are not shown");
  assert.doesNotMatch(
    out,
    /\[WARN\]/,
    'a run that went as planned shows no warning (the waits worker has no workflows)',
  );
  assert.deepEqual(
    left.filter((f) => f.startsWith('dataops-demo-')),
    [],
  );
});

// `--keep` said only "everything stays up": the CLI, pointed at the server, would start runs on the default task queue,
// where no worker polls, and wait for ever.
test('npm start -- --keep stays up and prints how the CLI reaches it; that command runs; Ctrl+C stops and cleans up', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'own-tmp-'));
  const demo = startProcess([dist('demo.js'), '--keep'], { TMPDIR: tmp });
  try {
    const hint = await eventually(
      'the lines of --keep',
      () => {
        failIfExited(demo.child, 'the demo', demo.output());
        return /^ {2}export (.+)\n {2}npm run cli -- (.+)$/m.exec(demo.output()) ?? undefined;
      },
      { tries: 1_200, delayMs: 100 },
    );
    const env = Object.fromEntries(
      hint[1]!.split(' ').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
    assert.deepEqual(Object.keys(env), ['TEMPORAL_ADDRESS', 'TEMPORAL_TASK_QUEUE', 'DATAOPS_TEMPORAL_UI_URL']);
    const run = await cli(hint[2]!.split(' '), env);
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /^verdict +PASSED$/m);
    // The guide's steps 2 and 5 run here, as written there, against this demo: its first command is the one printed.
    const guide = shellBlocks('docs/guide.md').filter((b) => b.commands.some((c) => c.startsWith('npm run cli -- ')));
    const commands = guide
      .filter((b) => b.marker?.kind === 'run-by' && b.marker.files.includes('test/e2e/demo.test.ts'))
      .flatMap((b) => b.commands);
    assert.ok(
      commands.includes(`npm run cli -- ${hint[2]!}`),
      `the guide shows the command the demo prints:\n${hint[2]}`,
    );
    assert.ok(
      commands.some((c) => c.includes('schedule create')),
      'the guide schedules a pipeline',
    );
    for (const command of commands) {
      const ran = await cli(shellWords(command).slice(4), env);
      assert.equal(ran.code, 0, `${command}\n${ran.out}\n${ran.err}`);
    }
    assert.equal(await demo.stop('SIGINT'), 0, demo.output());
    assert.match(demo.output(), /stopped the worker, the simulator and the dev server/);
    assert.deepEqual(
      readdirSync(tmp).filter((f) => f.startsWith('dataops-demo-')),
      [],
    );
  } finally {
    // Ctrl+C first, even after a failed assertion: a demo killed outright would leave its dev server running.
    demo.child.kill('SIGINT');
    await Promise.race([demo.exited, delay(30_000, undefined, { ref: false })]);
    await demo.stop('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
  }
});
