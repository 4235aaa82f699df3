import { isSpillwayError, SpillwayError } from '@spillway/core';

/**
 * The codes of audit failures. `AUDIT_NOT_FOUND`: a path given does not exist, or no
 * transcript was found where the host keeps them. `AUDIT_UNREADABLE`: a transcript exists
 * but cannot be read (permissions, a directory where a file was expected).
 * `AUDIT_INVALID_OPTION`: an option is out of range (a cap that is not a positive integer,
 * a rate outside 0–1, an unknown host).
 */
export type AuditErrorCode = 'AUDIT_NOT_FOUND' | 'AUDIT_UNREADABLE' | 'AUDIT_INVALID_OPTION';

/** A failure of an audit, with a stable code and a message that says what to do. */
export class AuditError extends SpillwayError<AuditErrorCode> {
  /** The stable code. */
  declare readonly code: AuditErrorCode;

  /**
   * @param code - the stable code
   * @param message - what went wrong and what to do
   * @param options - the underlying error, if any
   */
  constructor(code: AuditErrorCode, message: string, options?: { cause?: unknown }) {
    super('AuditError', code, message, options);
  }
}

/** Tells whether `error` is an {@link AuditError}, optionally with the given code. */
export function isAuditError(error: unknown, code?: AuditErrorCode): error is AuditError {
  return isSpillwayError(error, code) && error.name === 'AuditError';
}

/**
 * A transcript file that is not what its format says (not a SQLite database, a broken
 * b-tree): the file's fault, which {@link AuditError} `AUDIT_UNREADABLE` reports with its name.
 */
export class TranscriptFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TranscriptFormatError';
  }
}
