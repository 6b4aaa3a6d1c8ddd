/**
 * The failure catalogue (src/contract/failures.ts, contract/failures.json, docs/reference/failures.md) is complete and true:
 * every type the code raises is in it, at the place and with the retryability it has, and nothing else is.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import * as apiErrors from '../../src/api/errors.js';
import * as activityErrors from '../../src/activities/errors.js';
import { toFailure } from '../../src/activities/errors.js';
import { FAILURE_TYPES } from '../../src/contract/failures.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const at = (where: string) => new Set<string>(FAILURE_TYPES.filter((f) => f.at === where).map((f) => f.type));
const sources = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [readFileSync(join(root, dir, e.name), 'utf8')]
        : [],
  );

describe('the failure catalogue', () => {
  test('contract/failures.json is the catalogue (run `npm run contract:json` when this fails)', () => {
    assert.deepEqual(JSON.parse(readFileSync(join(root, 'contract/failures.json'), 'utf8')), FAILURE_TYPES);
  });

  test('every service error an activity can raise is listed as an activity failure, with its retryability', () => {
    const init = { method: 'GET', url: 'http://service/x' };
    const listed = at('activity');
    // Every subclass takes (message, init); UnexpectedResponse also its issues.
    type Ctor = new (message: string, init: { method: string; url: string }, issues: []) => apiErrors.ServiceError;
    const classes = Object.values(apiErrors).filter(
      (c) => typeof c === 'function' && c.prototype instanceof apiErrors.ServiceError,
    ) as unknown as Ctor[];
    assert.ok(classes.length >= 12, 'the service client exports its errors');
    for (const Cls of classes) {
      const failure = toFailure(new Cls('x', init, []));
      if ((Cls as unknown) === apiErrors.RequestAborted) continue; // becomes a cancellation, not a failure type
      const type = (failure as { type?: string }).type ?? '';
      // StrictImportRejected: the promotion turns the activity's into its own workflow failure.
      const entry =
        FAILURE_TYPES.find((f) => f.at === 'activity' && f.type === type) ??
        FAILURE_TYPES.find((f) => f.at === 'workflow' && f.type === type);
      assert.ok(entry, `${type} is missing from the catalogue`);
      assert.equal(entry?.retryable, !(failure as { nonRetryable?: boolean }).nonRetryable, `${type}'s retryability`);
    }
    for (const Cls of Object.values(activityErrors).filter(
      (c) => typeof c === 'function' && c.prototype instanceof Error,
    ) as (new (m: string, p?: string[]) => Error)[]) {
      const type = (toFailure(new Cls('x', [])) as { type?: string }).type ?? '';
      assert.ok(listed.has(type), `${type} (an activity error) is missing from the catalogue`);
    }
  });

  test('every failure type the workflows create is listed, and every listed one is created somewhere', () => {
    const code = ['src/workflows', 'src/activities', 'src/exactly-once', 'src/api'].flatMap(sources).join('\n');
    const created = new Set(
      [...code.matchAll(/type: '([A-Z][A-Za-z]+)'/g), ...code.matchAll(/refuse\('([A-Z][A-Za-z]+)'/g)].map((m) => m[1]),
    );
    const refusalTypes = /const refuse = \(type: ([^,]+),/.exec(code)?.[1]?.match(/'([A-Za-z]+)'/g) ?? [];
    for (const r of refusalTypes) created.add(r.replace(/'/g, ''));
    created.delete('JobStillRunning'); // the deferrable wait's retry signal: never reaches a caller
    for (const type of created)
      assert.ok(
        FAILURE_TYPES.some((f) => f.type === type),
        `${type} is raised but not in the catalogue`,
      );
    for (const { type, at: where } of FAILURE_TYPES.filter((f) => f.at !== 'activity'))
      assert.ok(created.has(type), `${type} (${where}) is listed but never raised`);
  });

  test('docs/reference/failures.md names every type', () => {
    const doc = readFileSync(join(root, 'docs/reference/failures.md'), 'utf8');
    for (const { type } of FAILURE_TYPES)
      assert.ok(doc.includes(`\`${type}\``), `docs/reference/failures.md lacks ${type}`);
  });
});
