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
    return new SpillError(
      'SPILL_STORAGE_FAILED',
      `Access denied (${detail}) for ${what}; grant the credentials s3:${operation} on the bucket and prefix (see the least-privilege policy in the @spillway/s3 README).`,
      { cause: error },
    );
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
