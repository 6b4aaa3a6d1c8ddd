import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Worker } from '@temporalio/worker';
import { workflowsPath } from '../helpers/activities.js';
import { workflowBundle } from '../helpers/temporal.js';

const dir = fileURLToPath(new URL('../../../test/fixtures/histories/', import.meta.url));

describe('replay of saved histories', () => {
  test('every committed history replays against the current workflow code (determinism)', async () => {
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort();
    assert.ok(files.length >= 5, `expected the recorded fixtures, found ${files.join(', ')}`);
    const histories = files.map((f) => ({
      workflowId: basename(f, '.json'),
      history: historyFromJSON(JSON.parse(readFileSync(join(dir, f), 'utf8'))),
    }));
    const results = Worker.runReplayHistories(
      {
        workflowBundle: await workflowBundle(workflowsPath),
        replayName: 'fixtures',
        debugMode: false,
        ...{ logger: new DefaultLogger('ERROR') },
      } as never,
      histories,
    );
    const replayed: string[] = [];
    for await (const r of results) {
      assert.equal(r.error, undefined, `${r.workflowId}: ${String(r.error)}`);
      replayed.push(r.workflowId);
    }
    assert.deepEqual(replayed.sort(), files.map((f) => basename(f, '.json')).sort());
  });
});
