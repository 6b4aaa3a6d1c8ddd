/**
 * What the S3 claim-check store (s3-blob-store.ts) is configured with, without the AWS SDK that implements it (an
 * optional package): the type a team's compiler reads even where that package is not installed.
 */
export interface S3StoreOptions {
  bucket: string;
  /** Key prefix, '' or ending in '/'. */
  prefix: string;
  region: string;
  /** An S3-compatible server's address; AWS's own when absent. */
  endpoint?: string;
  /** Path-style addresses (http://host/bucket/key), which most S3-compatible servers need. */
  forcePathStyle: boolean;
  /** Per-request timeout. */
  timeoutMs: number;
  /**
   * When the client sends and checks CRC checksums: `when_supported` (the AWS SDK's default) or `when_required`, for
   * S3-compatible stores that refuse the newer checksum headers (older MinIO and Ceph, GCS's interoperability API).
   * The content hash of every claim check is verified on read either way.
   */
  checksums?: 'when_supported' | 'when_required';
  /** Credentials; absent, the AWS SDK's default chain (AWS_ACCESS_KEY_ID..., profiles, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}
