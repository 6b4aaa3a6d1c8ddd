import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { runProcess } from '../helpers/processes.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const check = (file?: string) =>
  runProcess('bash', [join(root, 'scripts/check-compose.sh'), ...(file ? [file] : [])], {});

describe('docker-compose.yml (validated with compose-go; no Docker engine here)', () => {
  test('is a valid Compose project with the whole stack', async () => {
    const r = await check();
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /is valid: 6 services \(\[postgresql simulator starter temporal temporal-ui worker\]\)/);
  });

  test('the worker scales (no fixed name or host port) and every long-running service has a healthcheck and restart policy', () => {
    const text = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
    const worker = text.slice(text.indexOf('\n  worker:'), text.indexOf('\n  starter:'));
    assert.ok(!/container_name|ports:/.test(worker), 'worker can run with --scale worker=N');
    for (const service of ['postgresql', 'temporal', 'temporal-ui', 'simulator', 'worker']) {
      const start = text.indexOf(`\n  ${service}:`);
      const block = text.slice(
        start,
        text.indexOf('\n  ', start + service.length + 4) === -1 ? undefined : text.indexOf('\n\n  ', start + 1),
      );
      assert.match(block, /restart: unless-stopped/, `${service} restart policy`);
      if (service !== 'temporal-ui') assert.match(block, /healthcheck:/, `${service} healthcheck`);
    }
    assert.match(text.slice(text.indexOf('\n  starter:')), /restart: 'no'/, 'the starter is one-shot');
  });

  test('an invalid file is refused with the reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'compose-'));
    const broken = readFileSync(join(root, 'docker-compose.yml'), 'utf8').replace('healthcheck:', 'healthchek:');
    writeFileSync(join(dir, 'docker-compose.yml'), broken);
    writeFileSync(join(dir, 'Dockerfile'), 'FROM scratch\n');
    const r = await check(join(dir, 'docker-compose.yml'));
    assert.equal(r.code, 1);
    assert.match(r.out, /not a valid Compose file/);
  });
});
