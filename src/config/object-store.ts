/**
 * Where claim checks are stored: the local directory (the default), or an S3-compatible object store shared by every
 * host. Credentials are not read here: the AWS SDK's own chain finds them (AWS_ACCESS_KEY_ID and
 * AWS_SECRET_ACCESS_KEY, AWS_PROFILE, web identity, instance and container roles), so no secret passes through us.
 */
import type { S3StoreOptions } from '../claim-check/s3-options.js';
import { type Env, type Problems, doc, flag, httpUrl, int, oneOf, readEnv, text, textOr } from './env.js';

export type ObjectStoreConfig = Omit<S3StoreOptions, 'credentials'>;

// Bucket names as S3 allows them: 3 to 63 lowercase letters, digits, dots and hyphens, a letter or digit at each end.
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
// Key prefixes: segments of S3's safe characters, each ending in '/'.
const PREFIX = /^(?:[A-Za-z0-9!_.*'()-]+\/)*$/;
const S3_KEYS = [
  'DATAOPS_S3_BUCKET',
  'DATAOPS_S3_PREFIX',
  'DATAOPS_S3_ENDPOINT',
  'DATAOPS_S3_FORCE_PATH_STYLE',
  'DATAOPS_S3_CHECKSUMS',
];

/** The claim-check store's variables. */
export const objectStoreEnv = {
  DATAOPS_BLOB_STORE: doc(
    oneOf(['local', 's3'], 'local'),
    'Where claim checks (export files, import items) go: the local directory, or an S3-compatible object store every host shares.',
  ),
  DATAOPS_S3_BUCKET: doc(text(), 'The bucket, with `s3`. It must exist: the worker refuses to start without it.', {
    default: 'required with `s3`',
  }),
  DATAOPS_S3_PREFIX: doc(textOr('dataops/claim-checks/'), 'The key prefix (`/` alone: the whole bucket).'),
  DATAOPS_S3_ENDPOINT: doc(httpUrl(), 'An S3-compatible server (MinIO, Ceph, R2…).', { default: 'AWS' }),
  DATAOPS_S3_REGION: doc(text(), "The bucket's region.", { default: '`AWS_REGION`, else `us-east-1`' }),
  AWS_REGION: doc(
    text(),
    "Read for the region when `DATAOPS_S3_REGION` is unset. The key comes from the AWS SDK's own chain (`AWS_ACCESS_KEY_ID`…, `AWS_PROFILE`, roles).",
  ),
  DATAOPS_S3_FORCE_PATH_STYLE: doc(flag(false), 'Path-style addressing (`host/bucket/key`).', {
    default: '`true` with an endpoint, else `false`',
  }),
  DATAOPS_S3_TIMEOUT_MS: doc(
    int({ fallback: 30_000, min: 1, max: 600_000 }),
    'Timeout of each request to the store, in ms.',
  ),
  DATAOPS_S3_CHECKSUMS: doc(
    oneOf(['when_supported', 'when_required'], 'when_supported'),
    "`when_required` for stores that refuse the AWS SDK's newer CRC checksum headers (older MinIO or Ceph, GCS).",
  ),
};

/** The object store, or undefined for the local directory. */
export function readObjectStoreConfig(env: Env, problems: Problems): ObjectStoreConfig | undefined {
  const v = readEnv(objectStoreEnv, env, problems);
  if (v.DATAOPS_BLOB_STORE !== 's3') {
    const stray = S3_KEYS.filter((k) => env[k]);
    if (stray.length)
      problems.add(stray.join(', '), 'set, but DATAOPS_BLOB_STORE is not s3: set DATAOPS_BLOB_STORE=s3, or unset them');
    return undefined;
  }
  if (v.DATAOPS_S3_BUCKET === undefined) problems.add('DATAOPS_S3_BUCKET', 'required with DATAOPS_BLOB_STORE=s3');
  else if (!BUCKET.test(v.DATAOPS_S3_BUCKET))
    problems.add(
      'DATAOPS_S3_BUCKET',
      `expected an S3 bucket name (3 to 63 lowercase letters, digits, '.' and '-'), got '${v.DATAOPS_S3_BUCKET}'`,
    );
  // An empty prefix is allowed on purpose ('/' alone means the whole bucket); otherwise it ends in '/'.
  const prefix = v.DATAOPS_S3_PREFIX === '/' ? '' : v.DATAOPS_S3_PREFIX.replace(/\/*$/, '/');
  if (!PREFIX.test(prefix))
    problems.add(
      'DATAOPS_S3_PREFIX',
      `expected key segments of letters, digits and !_.*'()- separated by '/', got '${v.DATAOPS_S3_PREFIX}'`,
    );
  return {
    bucket: v.DATAOPS_S3_BUCKET ?? '',
    prefix,
    region: v.DATAOPS_S3_REGION ?? v.AWS_REGION ?? 'us-east-1',
    ...(v.DATAOPS_S3_ENDPOINT ? { endpoint: v.DATAOPS_S3_ENDPOINT } : {}),
    forcePathStyle: env.DATAOPS_S3_FORCE_PATH_STYLE
      ? v.DATAOPS_S3_FORCE_PATH_STYLE
      : v.DATAOPS_S3_ENDPOINT !== undefined,
    timeoutMs: v.DATAOPS_S3_TIMEOUT_MS,
    ...(v.DATAOPS_S3_CHECKSUMS === 'when_required' ? { checksums: 'when_required' as const } : {}),
  };
}
