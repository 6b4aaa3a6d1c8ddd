/**
 * Claim checks: large documents (export files of 20,000 definitions, import items) are stored outside workflow
 * history, which only holds a small reference. Keys are content hashes, so a retried write is idempotent.
 * The default store is a local directory; an S3-compatible object store (s3-blob-store.ts) serves many hosts.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzip, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { BlobRef } from '../contract/types.js';
import { BlobCorrupt, BlobNotFound } from './errors.js';

const gz = promisify(gzip);
const gunz = promisify(gunzip);

export interface BlobStore {
  /** Stores a JSON document; returns its reference. */
  putJson(value: unknown): Promise<BlobRef>;
  /** Reads a JSON document back; BlobNotFound when missing, an Error when the content does not match its hash. */
  getJson(ref: BlobRef): Promise<unknown>;
}

/**
 * A directory on the worker's file system. All workers of a task queue must share it (a shared volume), or use an
 * object store instead.
 */
export class LocalDirectoryBlobStore implements BlobStore {
  constructor(readonly dir: string) {}

  async putJson(value: unknown): Promise<BlobRef> {
    const blob = await packJson(value);
    const path = join(this.dir, blob.name);
    await mkdir(this.dir, { recursive: true });
    const exists = await stat(path).then(
      () => true,
      () => false,
    );
    if (!exists) {
      const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
      await writeFile(tmp, blob.packed);
      await rename(tmp, path);
    } else await touch(path); // written again: its retention starts over
    return { ref: `local:${blob.name}`, sha256: blob.sha256, bytes: blob.bytes };
  }

  async getJson(ref: BlobRef): Promise<unknown> {
    const match = /^local:(sha256-[0-9a-f]{64}\.json\.gz)$/.exec(ref.ref);
    if (!match?.[1]) throw new BlobNotFound(`not a local blob reference: ${ref.ref}`);
    let packed: Buffer;
    try {
      packed = await readFile(join(this.dir, match[1]));
    } catch {
      throw new BlobNotFound(`blob ${ref.ref} not found in ${this.dir}`);
    }
    await touch(join(this.dir, match[1])); // in use: its retention starts over
    return unpackJson(ref, packed);
  }
}

/** A document as every store keeps it: its JSON gzipped, named by the SHA-256 of the JSON (so a retried write is idempotent). */
export interface PackedBlob {
  name: string;
  sha256: string;
  /** The JSON's size, before compression. */
  bytes: number;
  packed: Buffer;
}

export async function packJson(value: unknown): Promise<PackedBlob> {
  const text = JSON.stringify(value);
  const sha256 = createHash('sha256').update(text).digest('hex');
  return { name: `sha256-${sha256}.json.gz`, sha256, bytes: Buffer.byteLength(text), packed: await gz(text) };
}

/** The document back from its stored bytes; BlobCorrupt when they are not gzip, not JSON, or not what the hash names. */
export async function unpackJson(ref: BlobRef, packed: Buffer): Promise<unknown> {
  let text: string;
  try {
    text = (await gunz(packed)).toString('utf8');
  } catch (err) {
    throw new BlobCorrupt(`blob ${ref.ref} is corrupt: not gzip (${(err as Error).message})`);
  }
  const sha256 = createHash('sha256').update(text).digest('hex');
  if (sha256 !== ref.sha256) throw new BlobCorrupt(`blob ${ref.ref} is corrupt: content hash ${sha256} differs`);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new BlobCorrupt(`blob ${ref.ref} is corrupt: not JSON (${(err as Error).message})`);
  }
}

/**
 * Writes to one store and reads each reference from the store its scheme names (`local:`, `s3:`): a deployment that
 * moves to an object store still finishes the promotions whose exports were written to the local directory.
 */
export class SchemeRoutedBlobStore implements BlobStore {
  constructor(
    private readonly writeTo: BlobStore,
    private readonly byScheme: Record<string, BlobStore>,
  ) {}

  putJson(value: unknown): Promise<BlobRef> {
    return this.writeTo.putJson(value);
  }

  getJson(ref: BlobRef): Promise<unknown> {
    const scheme = /^([a-z0-9]+):/.exec(ref.ref)?.[1];
    const store = scheme === undefined ? undefined : this.byScheme[scheme];
    if (!store)
      throw new BlobNotFound(
        `blob ${ref.ref}: no store for '${scheme ?? ref.ref}' references here (configured: ${Object.keys(this.byScheme).join(', ')})`,
      );
    return store.getJson(ref);
  }
}

/** Sets a file's modification time to now (its age for the retention rule); a file removed meanwhile is no error. */
async function touch(path: string): Promise<void> {
  const now = new Date();
  await utimes(path, now, now).catch(() => undefined);
}

/**
 * The retention rule of a local store: removes the blobs neither written nor read for `maxAgeMs` (and temporary
 * files of writes that died). Returns how many it removed. A blob is read again when a workflow uses it, so only
 * blobs no run has touched for that long go; set the age above the longest approval wait of a promotion.
 */
export async function pruneLocalBlobs(dir: string, maxAgeMs: number, now = Date.now()): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    if (!/^sha256-[0-9a-f]{64}\.json\.gz(\..+\.tmp)?$/.test(name)) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (
      info &&
      now - info.mtimeMs > maxAgeMs &&
      (await unlink(path).then(
        () => true,
        () => false,
      ))
    )
      removed++;
  }
  return removed;
}

/** Applies the retention rule now and then daily, until the returned function is called. */
export function retainLocalBlobs(
  dir: string,
  days: number,
  log: (removed: number) => void,
  everyMs = 24 * 3_600_000,
): () => void {
  const run = () => void pruneLocalBlobs(dir, days * 24 * 3_600_000).then((n) => n > 0 && log(n));
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
