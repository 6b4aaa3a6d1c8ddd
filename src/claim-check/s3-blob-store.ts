/**
 * The claim-check store on an S3-compatible object store (S3, MinIO, Ceph, R2...): every worker of a task queue,
 * on any host, reads what another wrote. Objects are named `<prefix>sha256-<hash>.json.gz`, as in the local
 * directory; the reference is `s3:<key>`, read from the bucket this worker is configured with. The retention rule is
 * the bucket's own lifecycle rule on the prefix: the store enforces it, no worker has to be running.
 */
import {
  GetBucketLifecycleConfigurationCommand,
  GetObjectCommand,
  PutBucketLifecycleConfigurationCommand,
  PutObjectCommand,
  S3Client,
  type LifecycleRule,
} from '@aws-sdk/client-s3';
import type { BlobRef } from '../contract/types.js';
import type { S3StoreOptions } from './s3-options.js';
import { packJson, unpackJson, type BlobStore } from './blob-store.js';
import { BlobNotFound, BlobStoreRefused, BlobStoreUnavailable } from './errors.js';

export type { S3StoreOptions } from './s3-options.js';

const KEY = /^s3:((?:[A-Za-z0-9!_.*'()-]+\/)*sha256-[0-9a-f]{64}\.json\.gz)$/;

export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;

  constructor(readonly options: S3StoreOptions) {
    this.client = new S3Client({
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
      requestHandler: { requestTimeout: options.timeoutMs, connectionTimeout: options.timeoutMs },
      ...(options.checksums === 'when_required'
        ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }
        : {}),
      maxAttempts: 3,
    });
  }

  /** Where the store is, for logs and messages: never a credential. */
  describe(): string {
    return `s3://${this.options.bucket}/${this.options.prefix}${this.options.endpoint ? ` at ${this.options.endpoint}` : ''}`;
  }

  async putJson(value: unknown): Promise<BlobRef> {
    const blob = await packJson(value);
    const key = `${this.options.prefix}${blob.name}`;
    // Always written, even when present: the same bytes, and the object's age (for the lifecycle rule) starts over.
    await this.call(`writing ${key}`, 'bucket', () =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.options.bucket,
          Key: key,
          Body: blob.packed,
          ContentType: 'application/gzip',
        }),
      ),
    );
    return { ref: `s3:${key}`, sha256: blob.sha256, bytes: blob.bytes };
  }

  async getJson(ref: BlobRef): Promise<unknown> {
    const key = KEY.exec(ref.ref)?.[1];
    if (!key) throw new BlobNotFound(`not an object-store blob reference: ${ref.ref}`);
    const packed = await this.call(`reading ${key}`, 'object', async () => {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key }));
      if (!answer.Body) throw new BlobStoreUnavailable(`${this.describe()}: ${key} came back without a body`);
      return Buffer.from(await answer.Body.transformToByteArray());
    });
    return unpackJson(ref, packed);
  }

  /**
   * Whether this worker can write and read claim checks here: it writes a small probe document and reads it back,
   * so only the permissions the activities need are exercised (s3:PutObject and s3:GetObject on the prefix; no
   * ListBucket, which least-privilege policies often leave out). BlobStoreRefused or BlobStoreUnavailable if not.
   */
  async probe(): Promise<void> {
    const probe = { probe: 'dataops-temporal claim-check store' };
    await this.getJson(await this.putJson(probe));
  }

  /**
   * Makes the bucket expire this prefix's objects `days` after they were last written, beside the bucket's other
   * lifecycle rules (which are kept: S3 replaces the whole configuration on every write). Returns whether it changed.
   */
  async ensureRetention(days: number): Promise<boolean> {
    const id = retentionRuleId(this.options.prefix);
    const rules = await this.call('reading the bucket lifecycle rules', 'bucket', async () => {
      try {
        const answer = await this.client.send(
          new GetBucketLifecycleConfigurationCommand({ Bucket: this.options.bucket }),
        );
        return answer.Rules ?? [];
      } catch (err) {
        if ((err as Error).name === 'NoSuchLifecycleConfiguration') return [];
        throw err;
      }
    });
    const ours: LifecycleRule = {
      ID: id,
      Status: 'Enabled',
      Filter: { Prefix: this.options.prefix },
      Expiration: { Days: days },
    };
    const current = rules.find((r) => r.ID === id);
    if (
      current?.Status === 'Enabled' &&
      current.Expiration?.Days === days &&
      current.Filter?.Prefix === this.options.prefix
    )
      return false;
    const others = rules.filter((r) => r.ID !== id);
    await this.call('writing the bucket lifecycle rules', 'bucket', () =>
      this.client.send(
        new PutBucketLifecycleConfigurationCommand({
          Bucket: this.options.bucket,
          LifecycleConfiguration: { Rules: [...others, ours] },
        }),
      ),
    );
    return true;
  }

  close(): void {
    this.client.destroy();
  }

  /**
   * Runs one call and names what failed (`missing` says what a 404 means): a missing object is BlobNotFound; a
   * refusal (credentials, permissions, no such bucket) is BlobStoreRefused, which retrying cannot fix; anything else
   * (5xx, throttling, the network) is BlobStoreUnavailable, which the activity's retries ride out.
   */
  private async call<T>(what: string, missing: 'object' | 'bucket', fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof BlobStoreUnavailable) throw err;
      const e = err as Error & { $metadata?: { httpStatusCode?: number } };
      const status = e.$metadata?.httpStatusCode;
      const where = `${this.describe()}: ${what}`;
      // A 404 is the object only where an object was asked for, and the bucket exists (NoSuchBucket says otherwise).
      if (missing === 'object' && (e.name === 'NoSuchKey' || (status === 404 && e.name !== 'NoSuchBucket')))
        throw new BlobNotFound(`${where}: no such object (removed by the retention rule, or never written here)`);
      if (missing === 'bucket' && status === 404)
        throw new BlobStoreRefused(`${where}: refused (no such bucket: ${e.name})`);
      if (
        [
          'AccessDenied',
          'InvalidAccessKeyId',
          'SignatureDoesNotMatch',
          'NoSuchBucket',
          'CredentialsProviderError',
        ].includes(e.name) ||
        status === 401 ||
        status === 403
      )
        throw new BlobStoreRefused(`${where}: refused (${e.name}: ${e.message})`);
      throw new BlobStoreUnavailable(`${where}: failed (${e.name}: ${e.message})`);
    }
  }
}

/** The lifecycle rule's id: one per prefix, so workers of several deployments can share a bucket. */
export function retentionRuleId(prefix: string): string {
  return `dataops-claim-checks:${prefix || '(whole bucket)'}`.slice(0, 255);
}
