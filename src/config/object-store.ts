/**
 * Where claim checks are stored: the local directory (the default), or an S3-compatible object store shared by every
 * host. Credentials are not read here: the AWS SDK's own chain finds them (AWS_ACCESS_KEY_ID and
 * AWS_SECRET_ACCESS_KEY, AWS_PROFILE, web identity, instance and container roles), so no secret passes through us.
 */
import type { S3StoreOptions } from '../activities/s3-options.js';
import { type Env, type Problems, flag, httpUrl, int, oneOf, readEnv, text, textOr } from './env.js';

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

/** The object store, or undefined for the local directory. */
export function readObjectStoreConfig(env: Env, problems: Problems): ObjectStoreConfig | undefined {
  const v = readEnv(
    {
      DATAOPS_BLOB_STORE: oneOf(['local', 's3'], 'local'),
      DATAOPS_S3_BUCKET: text(),
      DATAOPS_S3_PREFIX: textOr('dataops/claim-checks/'),
      DATAOPS_S3_ENDPOINT: httpUrl(),
      DATAOPS_S3_REGION: text(),
      AWS_REGION: text(),
      DATAOPS_S3_FORCE_PATH_STYLE: flag(env.DATAOPS_S3_ENDPOINT !== undefined && env.DATAOPS_S3_ENDPOINT !== ''),
      DATAOPS_S3_TIMEOUT_MS: int({ fallback: 30_000, min: 1, max: 600_000 }),
      DATAOPS_S3_CHECKSUMS: oneOf(['when_supported', 'when_required'], 'when_supported'),
    },
    env,
    problems,
  );
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
    forcePathStyle: v.DATAOPS_S3_FORCE_PATH_STYLE,
    timeoutMs: v.DATAOPS_S3_TIMEOUT_MS,
    ...(v.DATAOPS_S3_CHECKSUMS === 'when_required' ? { checksums: 'when_required' as const } : {}),
  };
}
