/** How a claim-check store fails: the activities map each to a retryable or a final failure (src/activities/errors.ts). */
/** Thrown when a claim-check reference points to nothing in the store. */
export class BlobNotFound extends Error {
  override readonly name = 'BlobNotFound';
}

/** Thrown when the object store refuses (credentials, permissions, no such bucket): retrying cannot help. */
export class BlobStoreRefused extends Error {
  override readonly name = 'BlobStoreRefused';
}

/** Thrown when the object store fails in a way that may pass (5xx, throttling, the network): retried. */
export class BlobStoreUnavailable extends Error {
  override readonly name = 'BlobStoreUnavailable';
}

/** Thrown when a stored file is damaged (not gzip, a content hash that differs, not JSON): reading it again cannot help. */
export class BlobCorrupt extends Error {
  override readonly name = 'BlobCorrupt';
}
