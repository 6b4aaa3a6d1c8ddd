/** The worker's lineage emitter as buildActivityDeps makes it: none when off; each event counted; a drop warned. */
import assert from 'node:assert/strict';
import type { MetricMeter } from '@temporalio/common';
import { test } from 'node:test';
import { openLineage, PRODUCER_VERSION } from '../../src/setup/lineage.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function meter() {
  const added: [string, number, Record<string, unknown>][] = [];
  const m = {
    createCounter: (name: string) => ({
      add: (n: number, tags: Record<string, unknown>) => added.push([name, n, tags]),
    }),
  } as unknown as MetricMeter;
  return { m, added };
}

test('off makes no emitter; on, each event is counted by outcome and a drop is warned with its reason', async () => {
  const none = meter();
  assert.equal(
    openLineage(
      { transport: { type: 'off' }, namespace: 'n', connections: {}, serviceLanguage: 'Python' },
      none.m,
      () => undefined,
      () => undefined,
    ),
    undefined,
  );
  const { m, added } = meter();
  const warned: string[] = [];
  // A file where its directory should be: the events cannot be written.
  const notADir = join(mkdtempSync(join(tmpdir(), 'lineage-')), 'file');
  writeFileSync(notADir, '');
  const lineage = openLineage(
    {
      transport: { type: 'file', path: join(notADir, 'events.jsonl') },
      namespace: 'n',
      datasetNamespace: 'pg://w',
      connections: {},
      serviceLanguage: 'Python',
    },
    m,
    (message, meta) => warned.push(`${message}: ${String(meta.reason)}`),
    () => undefined,
  );
  assert.ok(lineage);
  assert.deepEqual(lineage.settings, {
    namespace: 'n',
    datasetNamespace: 'pg://w',
    producerVersion: PRODUCER_VERSION,
    serviceLanguage: 'Python',
  });
  assert.ok(lineage.datasources, 'tables are named by their connections');
  lineage.emitter.emit(async () => [{ eventType: 'START' }]);
  await lineage.emitter.flush(10_000);
  assert.deepEqual(added, [['dataops_lineage_events', 1, { outcome: 'dropped' }]]);
  assert.match(warned[0] ?? '', /^lineage event dropped: cannot append to .*\/file\/events.jsonl: EEXIST/);
});

test("the events' producer is this package's version", () => {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  assert.equal(PRODUCER_VERSION, pkg.version);
});
