import type { SpillErrorCode } from '@spillway/core';

/**
 * The exit codes `spillway` uses for its own outcomes. `spillway run` also exits with the
 * child's own code, or 128 + N when a signal N ended the child, so scripts that need to
 * tell the two apart should use `run --json`.
 */
export const EXIT_CODES = {
  /** Success. */
  OK: 0,
  /** An unexpected failure: a bug, an aborted operation, an output that could not be written. */
  FAILURE: 1,
  /** A usage error: an unknown option, a missing argument, a malformed number or pattern. */
  USAGE: 2,
  /** The locator is well formed but names nothing (never stored, or removed). */
  NOT_FOUND: 3,
  /** The locator is malformed, forged, or points outside the root. */
  INVALID_LOCATOR: 4,
  /** The artifact existed but was evicted or removed by retention. */
  EXPIRED: 5,
  /** The root (or a directory under it) is not a private directory owned by you. */
  UNSAFE_ROOT: 6,
  /** Storage failed: a write error, a full disk, content too large, a broken input stream. */
  STORAGE: 7,
  /** A bounded operation (grep) ran out of its time budget. */
  TIMEOUT: 8,
  /**
   * Done, with problems: `ls` or `gc` went through everything it could, but skipped part
   * of the root (a session directory it refused), named in a warning.
   */
  PARTIAL: 9,
  /** `run`: the command exists but cannot be executed (permissions, not a program). */
  COMMAND_NOT_EXECUTABLE: 126,
  /** `run`: the command was not found. */
  COMMAND_NOT_FOUND: 127,
  /** `run`: added to the signal number when a signal ended the command. */
  SIGNAL_BASE: 128,
} as const;

/** The exit code for a `SpillError` code. */
export function exitCodeForSpillError(code: SpillErrorCode): number {
  switch (code) {
    case 'SPILL_NOT_FOUND':
      return EXIT_CODES.NOT_FOUND;
    case 'SPILL_INVALID_LOCATOR':
      return EXIT_CODES.INVALID_LOCATOR;
    case 'SPILL_EXPIRED':
      return EXIT_CODES.EXPIRED;
    case 'SPILL_UNSAFE_ROOT':
      return EXIT_CODES.UNSAFE_ROOT;
    case 'SPILL_STORAGE_FAILED':
    case 'SPILL_NO_SPACE':
    case 'SPILL_TOO_LARGE':
    case 'SPILL_STREAM_FAILED':
      return EXIT_CODES.STORAGE;
    case 'SPILL_TIMEOUT':
      return EXIT_CODES.TIMEOUT;
    case 'SPILL_INVALID_PATTERN':
      return EXIT_CODES.USAGE;
    default:
      // SPILL_ABORTED, SPILL_INVALID_INPUT, and any code core adds later.
      return EXIT_CODES.FAILURE;
  }
}
