import { SpillError, abortedError, isSpillError } from '@spillway/core';

/** What the SDK (or a network layer below it) tells us about a failed request. */
export interface S3Failure {
  /** The HTTP status, when a response came back. */
  readonly status: number | undefined;
  /** The S3 error code (`AccessDenied`, `NoSuchBucket`, `SlowDown`…) or a system errno. */
  readonly code: string | undefined;
}

/** Reads the HTTP status and error code off anything the SDK throws. */
export function failureOf(error: unknown): S3Failure {
  if (typeof error !== 'object' || error === null) return { status: undefined, code: undefined };
  const e = error as { $metadata?: { httpStatusCode?: unknown }; name?: unknown; Code?: unknown; code?: unknown };
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined;
  const code = typeof e.Code === 'string' ? e.Code : typeof e.code === 'string' ? e.code : typeof e.name === 'string' ? e.name : undefined;
  return { status, code };
}

// Error codes worth another attempt: throttling, server trouble, a connection that broke.
const RETRYABLE_CODES = new Set([
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'RequestTimeout',
  'RequestTimeTooSkewed',
  'InternalError',
  'ServiceUnavailable',
  'TimeoutError',
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
]);

/** Whether a failed request may succeed when sent again. */
export function isRetryable(error: unknown): boolean {
  const { status, code } = failureOf(error);
  if (status !== undefined && (status >= 500 || status === 429)) return true;
  if (code !== undefined && RETRYABLE_CODES.has(code)) return true;
  // A response cut short (socket hang up, premature close) carries no status at all.
  if (status === undefined && error instanceof Error && /socket hang up|premature close|aborted|ECONNRESET/i.test(error.message)) {
    return error.name !== 'AbortError';
  }
  return false;
}

/** Whether the store refused a conditional write because the key is taken. */
export function isKeyTaken(error: unknown): boolean {
  const { status, code } = failureOf(error);
  return status === 412 || code === 'PreconditionFailed' || status === 409 || code === 'ConditionalRequestConflict';
}

/** Whether the store says it does not implement the operation (HTTP 501). */
export function isNotImplemented(error: unknown): boolean {
  const { status, code } = failureOf(error);
  return status === 501 || code === 'NotImplemented';
}

/** Whether the store says the object does not exist. */
export function isNoSuchKey(error: unknown): boolean {
  const { status, code } = failureOf(error);
  return code === 'NoSuchKey' || code === 'NotFound' || (status === 404 && code !== 'NoSuchBucket');
}

/**
 * The IAM action that allows each S3 operation the backend sends. The operation's own
 * name is often not an action: `HeadBucket` and `ListObjectsV2` are `s3:ListBucket`, the
 * parts of a multipart upload are `s3:PutObject`, `HeadObject` is `s3:GetObject`.
 */
export const IAM_ACTIONS: Readonly<Record<string, string>> = Object.freeze({
  HeadBucket: 's3:ListBucket',
  ListObjectsV2: 's3:ListBucket',
  PutObject: 's3:PutObject',
  CreateMultipartUpload: 's3:PutObject',
  UploadPart: 's3:PutObject',
  CompleteMultipartUpload: 's3:PutObject',
  GetObject: 's3:GetObject',
  HeadObject: 's3:GetObject',
  DeleteObject: 's3:DeleteObject',
  AbortMultipartUpload: 's3:AbortMultipartUpload',
  ListMultipartUploads: 's3:ListBucketMultipartUploads',
  ListParts: 's3:ListMultipartUploadParts',
});

/** Where the policy the backend needs is written down. */
const POLICY_DOCS = 'the least-privilege IAM policy in docs/s3.md ("A least-privilege IAM policy"), linked from the @spillway/s3 README';

/**
 * What a refused request says: what was refused, then the likely causes, the most likely
 * first. A store that does not know the key (InvalidAccessKeyId, SignatureDoesNotMatch, or
 * a bare 403 from a HEAD, which carries no code) is by far the most common cause, then a
 * request sent to the wrong endpoint or region, and only then a missing permission.
 */
function accessDeniedMessage(operation: string, bucket: string, detail: string, code: string | undefined): string {
  const action = IAM_ACTIONS[operation];
  const keysKnownBad = code === 'InvalidAccessKeyId' || code === 'SignatureDoesNotMatch';
  const keys = keysKnownBad
    ? `the store does not know these credentials (${code}): check the access key id and secret (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the profile)`
    : 'wrong credentials: check the access key id and secret (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the profile) are the ones this store issued';
  const permission =
    action === undefined
      ? `the credentials lack the permission for ${operation}`
      : `the credentials lack ${action} on ${operation === 'HeadBucket' || action.startsWith('s3:ListBucket') ? `arn:aws:s3:::${bucket}` : `arn:aws:s3:::${bucket}/<prefix>/*`} (what ${operation} needs)`;
  return (
    `Access denied (${detail}): the store refused ${operation} on bucket "${bucket}". ` +
    `Likely causes, most likely first: 1) ${keys}; 2) the wrong endpoint or region: the request reached another store or region than the bucket's (check endpoint and region); ` +
    `3) a missing permission: ${permission}. The permissions the backend needs are in ${POLICY_DOCS}.`
  );
}

/**
 * Turns anything a request threw into a {@link SpillError} that names the bucket and the
 * operation, with the SDK's error as `cause`. A SpillError passes through unchanged, and
 * an aborted `signal` always answers `SPILL_ABORTED`.
 *
 * @param operation - the S3 operation, such as `PutObject`
 */
export function s3Error(error: unknown, operation: string, bucket: string, signal?: AbortSignal): SpillError {
  if (isSpillError(error)) return error;
  if (signal?.aborted === true) return abortedError(signal, `${operation} on bucket "${bucket}"`);
  const { status, code } = failureOf(error);
  const detail = [status === undefined ? undefined : `HTTP ${String(status)}`, code].filter((x) => x !== undefined).join(' ');
  const what = `${operation} on bucket "${bucket}"`;
  if (code === 'AccessDenied' || code === 'Forbidden' || code === 'InvalidAccessKeyId' || code === 'SignatureDoesNotMatch' || status === 403) {
    return new SpillError('SPILL_STORAGE_FAILED', accessDeniedMessage(operation, bucket, detail, code), { cause: error });
  }
  if (code === 'NoSuchBucket' || (operation === 'HeadBucket' && status === 404)) {
    return new SpillError('SPILL_STORAGE_FAILED', `The bucket "${bucket}" does not exist (${operation} answered NoSuchBucket); create it, or fix the bucket name and endpoint.`, {
      cause: error,
    });
  }
  if (code === 'EntityTooLarge') {
    return new SpillError('SPILL_TOO_LARGE', `The store refused the object as too large (${what}); lower maxInlineBytes or stream it with saveTextStream.`, { cause: error });
  }
  const message = error instanceof Error && error.message !== '' ? error.message : String(error);
  return new SpillError('SPILL_STORAGE_FAILED', `${what} failed (${detail === '' ? message : `${detail}: ${message}`}); check the endpoint, the network and the store's health.`, {
    cause: error,
  });
}
