import { SpillError, isSpillError } from '@spillway/core';
import type { SpillErrorCode } from '@spillway/core';

/** The errno `code` of a system error, or undefined. */
export function errnoOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** Errno codes that mean "the storage is full". */
const NO_SPACE = new Set(['ENOSPC', 'EDQUOT']);

/**
 * Turns anything thrown while storing into a {@link SpillError}, keeping the system error
 * as `cause`. A SpillError passes through unchanged.
 *
 * @param what - the action, for the message (e.g. "writing the spill file")
 */
export function storageError(error: unknown, what: string): SpillError {
  if (isSpillError(error)) return error;
  const errno = errnoOf(error);
  if (errno !== undefined && NO_SPACE.has(errno)) {
    return new SpillError(
      'SPILL_NO_SPACE',
      `The spill storage is full (${errno}) while ${what}; free space in the spill root or point the backend at a larger volume.`,
      { cause: error },
    );
  }
  if (errno === 'EMFILE' || errno === 'ENFILE') {
    return new SpillError(
      'SPILL_STORAGE_FAILED',
      `Too many open files (${errno}) while ${what}; lower maxOpenFiles or raise the process's file descriptor limit.`,
      { cause: error },
    );
  }
  if (errno === 'EACCES' || errno === 'EPERM' || errno === 'EROFS') {
    return new SpillError(
      'SPILL_STORAGE_FAILED',
      `Permission denied (${errno}) while ${what}; make sure the spill root is writable by this user and not read-only or immutable.`,
      { cause: error },
    );
  }
  const detail = errno ?? (error instanceof Error ? error.message : String(error));
  return new SpillError('SPILL_STORAGE_FAILED', `Storage failed (${detail}) while ${what}; check the spill root's file system.`, {
    cause: error,
  });
}

/** A `SPILL_UNSAFE_ROOT` error with a message that says what to fix. */
export function unsafe(message: string, cause?: unknown): SpillError {
  return spillError('SPILL_UNSAFE_ROOT', message, cause);
}

/** A SpillError with the given code; `cause` only when there is one. */
export function spillError(code: SpillErrorCode, message: string, cause?: unknown): SpillError {
  return new SpillError(code, message, cause === undefined ? {} : { cause });
}
