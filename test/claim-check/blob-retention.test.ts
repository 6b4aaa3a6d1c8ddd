/**
 * The local claim-check store's retention rule: blobs neither written nor read for the retention age are removed,
 * one written again or read starts over, and files that are not blobs are left alone.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LocalDirectoryBlobStore, pruneLocalBlobs } from '../../src/claim-check/blob-store.js';

const DAY = 24 * 3_600_000;
const age = (path: string, days: number) => {
  const then = new Date(Date.now() - days * DAY);
  utimesSync(path, then, then);
};

describe('local claim-check retention', () => {
  test('removes blobs past the age; a blob written again or read is kept; other files stay', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'retention-'));
    const store = new LocalDirectoryBlobStore(dir);
    const old = await store.putJson({ definitions: ['old'] });
    const rewritten = await store.putJson({ definitions: ['rewritten'] });
    const read = await store.putJson({ definitions: ['read'] });
    const fresh = await store.putJson({ definitions: ['fresh'] });
    const file = (ref: { ref: string }) => join(dir, ref.ref.slice('local:'.length));
    for (const ref of [old, rewritten, read]) age(file(ref), 40);
    age(file(fresh), 5);
    writeFileSync(join(dir, 'notes.txt'), 'not a blob');
    age(join(dir, 'notes.txt'), 400);
    writeFileSync(`${file(old)}.123.456.tmp`, 'a write that died');
    age(`${file(old)}.123.456.tmp`, 40);

    await store.putJson({ definitions: ['rewritten'] });
    assert.deepEqual(await store.getJson(read), { definitions: ['read'] });

    assert.equal(await pruneLocalBlobs(dir, 30 * DAY), 2, 'the old blob and the dead write');
    assert.ok(!existsSync(file(old)));
    for (const ref of [rewritten, read, fresh]) assert.ok(existsSync(file(ref)), ref.ref);
    assert.ok(readdirSync(dir).includes('notes.txt'));
    assert.equal(await pruneLocalBlobs(join(dir, 'missing'), DAY), 0, 'a directory not made yet is no error');
  });
});
