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
    assert.match(
      r.out,
      /is valid: 8 services \(\[minio minio-bucket postgresql simulator starter temporal temporal-ui worker\]\)/,
    );
  });

  test('the worker scales (no fixed name or host port) and every long-running service has a healthcheck and restart policy', () => {
    const text = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
    const worker = text.slice(text.indexOf('\n  worker:'), text.indexOf('\n  starter:'));
    assert.ok(!/container_name|ports:/.test(worker), 'worker can run with --scale worker=N');
    for (const service of ['postgresql', 'temporal', 'temporal-ui', 'minio', 'simulator', 'worker']) {
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

  test('the workers share the object store as their claim-check store, with a retention rule, after its bucket exists', () => {
    const text = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
    const worker = text.slice(text.indexOf('\n  worker:'), text.indexOf('\n  starter:'));
    assert.match(worker, /DATAOPS_BLOB_STORE: s3\n/);
    assert.match(worker, /DATAOPS_S3_BUCKET: dataops-claims\n/);
    assert.match(worker, /DATAOPS_S3_ENDPOINT: http:\/\/minio:9000\n/);
    assert.match(worker, /DATAOPS_BLOB_RETENTION_DAYS: '\d+'\n/);
    assert.match(worker, /minio-bucket:\n\s+condition: service_completed_successfully/);
    assert.match(worker, /AWS_SHARED_CREDENTIALS_FILE: \/run\/secrets\/s3_credentials/);
    assert.ok(!/AWS_SECRET_ACCESS_KEY/.test(text), 'no key in the compose file itself');
    const bucket = text.slice(text.indexOf('\n  minio-bucket:'), text.indexOf('\n  simulator:'));
    assert.match(bucket, /mc mb --ignore-existing store\/dataops-claims/);
    // The credentials file's key is the store's password: the one secret, in two forms.
    const password = readFileSync(join(root, 'deploy/demo-minio-password.txt'), 'utf8').trim();
    const ini = readFileSync(join(root, 'deploy/demo-s3-credentials.ini'), 'utf8');
    assert.match(ini, new RegExp(`^aws_secret_access_key = ${password}$`, 'm'));
    assert.match(ini, /^aws_access_key_id = dataops$/m);
    assert.match(text, /MINIO_ROOT_USER: dataops\n/);
  });

  test('the image keeps the Temporal SDK: a peer of the package, a dev dependency here, so dev dependencies stay', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: object };
    assert.ok(Object.keys(pkg.devDependencies).includes('@temporalio/worker'));
    assert.doesNotMatch(dockerfile.replace(/^#.*$/gm, ''), /--omit[= ]dev|--production/);
    assert.match(dockerfile, /COPY --from=build \/app\/node_modules \.\/node_modules/);
  });

  test("the image owns every mount point of the app's named volumes (it runs as node; a new volume copies the ownership)", () => {
    const compose = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const final = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    assert.match(final, /\nUSER node\n/);
    const appServices = ['simulator', 'worker'];
    const mounts = appServices.flatMap((service) => {
      const start = compose.indexOf(`\n  ${service}:`);
      const block = compose.slice(start, compose.indexOf('\n\n  ', start + 1));
      return [...block.matchAll(/^\s+- ([\w-]+):(\/[\w/.-]+)$/gm)].map((m) => m[2]!);
    });
    assert.deepEqual(mounts.sort(), ['/data', '/shared']);
    const made = /RUN mkdir -p ([^\n\\]+)[\s\\]*&& chown -R node:node ([^\n]+)/.exec(final);
    assert.ok(made, 'the final stage makes and chowns its mount points');
    for (const mount of mounts) {
      assert.ok(
        made[1]!.split(/\s+/).some((d) => d === mount || d.startsWith(`${mount}/`)),
        `${mount} made`,
      );
      assert.ok(made[2]!.split(/\s+/).includes(mount), `${mount} owned by node`);
    }
  });

  test('the worker runs under the heap cap the capacity benchmark measured (docs/benchmarks.md)', () => {
    const text = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
    const worker = text.slice(text.indexOf('\n  worker:'), text.indexOf('\n  starter:'));
    const cap = /^\s+NODE_OPTIONS: --max-old-space-size=(\d+)$/m.exec(worker);
    assert.ok(cap, 'the worker sets a heap cap: without a memory limit Node sizes its heap from the host');
    assert.equal(cap[1], '512', 'the cap measured with 5,000 waiting pipelines and a 20,000-definition promotion');
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
