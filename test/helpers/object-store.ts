/**
 * An S3-compatible object store for the claim-check tests: moto's standalone server, installed from PyPI by
 * scripts/install-object-store.sh, started per test file on a free port (or, with DATAOPS_S3_TEST_ENDPOINT, a
 * server you run yourself: MinIO, Ceph, S3; with DATAOPS_S3_TEST_ACCESS_KEY_ID / _SECRET_ACCESS_KEY for it).
 *
 *   DATAOPS_SKIP_OBJECT_STORE=1   skip the object-store tests (each says so); under CI=true they fail instead
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { localServersConfig } from '../../src/config/local-servers.js';
import { pinnedVersions } from '../../src/local/package-root.js';
import { reapMarkedProcesses } from './marked-processes.js';
import { installedNeed, type Need } from './needs.js';
import { failIfExited, freePort } from './processes.js';
import { eventually } from './wait.js';

export interface ObjectStoreServer {
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** The same, as the AWS SDK's standard variables, for worker processes. */
  awsEnv: Record<string, string>;
  /** A client for setting up and inspecting buckets. */
  client: S3Client;
  /** Creates a bucket with a unique name and returns the name. */
  bucket(): Promise<string>;
  close(): Promise<void>;
}

const MARKER = 'DATAOPS_OBJECT_STORE_PEER';

const installDir = () => join(localServersConfig().cacheDir, `moto-${pinnedVersions().objectStore}`);

/** The object-store tests' need: moto installed by scripts/install-object-store.sh, or DATAOPS_S3_TEST_ENDPOINT. */
export const objectStoreNeed = (): Need =>
  installedNeed({
    what: `an S3-compatible server (moto ${pinnedVersions().objectStore})`,
    install: 'npm run install-object-store (Python >= 3.11 and PyPI), or set DATAOPS_S3_TEST_ENDPOINT',
    dir: installDir(),
    skipVar: 'DATAOPS_SKIP_OBJECT_STORE',
    useVar: 'DATAOPS_S3_TEST_ENDPOINT',
  });

export async function startObjectStore(): Promise<ObjectStoreServer> {
  let child: ChildProcess | undefined;
  const marker = randomUUID();
  let endpoint = process.env.DATAOPS_S3_TEST_ENDPOINT?.replace(/\/+$/, '');
  const credentials = {
    accessKeyId: process.env.DATAOPS_S3_TEST_ACCESS_KEY_ID ?? 'test-access-key',
    secretAccessKey: process.env.DATAOPS_S3_TEST_SECRET_ACCESS_KEY ?? 'test-secret-key',
  };
  if (!endpoint) {
    const port = await freePort();
    endpoint = `http://127.0.0.1:${port}`;
    child = spawn(join(installDir(), 'bin', 'moto_server'), ['-H', '127.0.0.1', '-p', String(port)], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, [MARKER]: marker },
    });
    const url = endpoint;
    await eventually(
      `moto to answer on ${url}`,
      async () => {
        failIfExited(child, 'moto_server');
        return (await fetch(`${url}/moto-api/`).catch(() => null))?.ok;
      },
      { tries: 400, delayMs: 100 },
    );
  }
  const region = 'us-east-1';
  const client = new S3Client({ endpoint, region, credentials, forcePathStyle: true });
  return {
    endpoint,
    region,
    credentials,
    awsEnv: {
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_REGION: region,
    },
    client,
    bucket: async () => {
      const name = `claims-${randomUUID()}`;
      await client.send(new CreateBucketCommand({ Bucket: name }));
      return name;
    },
    close: async () => {
      client.destroy();
      if (child?.pid && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
      if (child) await reapMarkedProcesses(MARKER, marker, 10_000);
    },
  };
}
