import { isSpillError, type SpillErrorCode } from '@spillway/core';
import { EXIT_CODES, exitCodeForSpillError } from './exit-codes.js';

/** The codes of failures that belong to the CLI itself rather than to a backend. */
export type CliErrorCode = 'USAGE' | 'COMMAND_NOT_FOUND' | 'COMMAND_NOT_EXECUTABLE' | 'FAILED';

/**
 * A failure the CLI detects itself (a bad argument, a command that cannot be started).
 * Backend failures stay `SpillError`s; both end up as one line on stderr.
 */
export class CliError extends Error {
  /** A stable code, printed in `--json` errors. */
  readonly code: CliErrorCode;
  /** The process exit code this failure maps to. */
  readonly exitCode: number;

  /**
   * @param code - the stable code
   * @param message - what went wrong and what to do, in one sentence or two
   * @param exitCode - the exit code; defaults to the one that belongs to `code`
   * @param options - the underlying error, if any
   */
  constructor(code: CliErrorCode, message: string, exitCode?: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
    this.code = code;
    this.exitCode = exitCode ?? defaultExitCode(code);
  }
}

function defaultExitCode(code: CliErrorCode): number {
  switch (code) {
    case 'USAGE':
      return EXIT_CODES.USAGE;
    case 'COMMAND_NOT_FOUND':
      return EXIT_CODES.COMMAND_NOT_FOUND;
    case 'COMMAND_NOT_EXECUTABLE':
      return EXIT_CODES.COMMAND_NOT_EXECUTABLE;
    case 'FAILED':
      return EXIT_CODES.FAILURE;
  }
}

/**
 * What to do, from the command line, after a backend error. Backend messages are written
 * for API users; this adds the CLI's side (options, commands).
 */
const SPILL_ADVICE: Partial<Record<SpillErrorCode, string>> = {
  SPILL_UNSAFE_ROOT: '(spillway: use --root or SPILLWAY_ROOT with a private directory of yours, e.g. one made with mkdir -m 700.)',
  SPILL_INVALID_LOCATOR: '(spillway: pass the locator exactly as a spill notice or `spillway ls` printed it.)',
  SPILL_NOT_FOUND: '(spillway: `spillway ls` lists the artifacts that exist.)',
  SPILL_EXPIRED: '(spillway: it was removed by retention or eviction; run the command that produced it again.)',
  SPILL_INVALID_PATTERN: '(spillway: escape the special characters, or add -F to search for literal text.)',
  SPILL_TIMEOUT: '(spillway: try a simpler pattern, or -F for literal text.)',
  SPILL_NO_SPACE: '(spillway: free some space, or remove old artifacts with `spillway rm`.)',
};

/** A failure reduced to what the CLI prints and returns. */
export interface DescribedError {
  /** A `SpillError` code, a {@link CliErrorCode}, or `INTERNAL` for anything unexpected. */
  readonly code: string;
  /** One line, with control characters escaped. */
  readonly message: string;
  /** The exit code. */
  readonly exitCode: number;
}

/** Reduces any thrown value to a code, a one-line message and an exit code. */
export function describeError(error: unknown): DescribedError {
  if (isSpillError(error)) {
    const advice = SPILL_ADVICE[error.code];
    const message = advice === undefined ? error.message : `${error.message.trimEnd()} ${advice}`;
    return { code: error.code, message: oneLine(message), exitCode: exitCodeForSpillError(error.code) };
  }
  if (error instanceof CliError) {
    return { code: error.code, message: oneLine(error.message), exitCode: error.exitCode };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    code: 'INTERNAL',
    message: oneLine(`Unexpected failure: ${message}. Run again with --debug for details, and report it if it persists.`),
    exitCode: EXIT_CODES.FAILURE,
  };
}

// C0 and C1 controls, DEL, and the bidi embedding/override/isolate characters: a message may
// quote a hostile locator or pattern, which must not drive the terminal or reorder the line.
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Makes `text` safe to print as one terminal line: line breaks and other control
 * characters become visible escapes such as `\n` or `\u001b`.
 */
export function oneLine(text: string): string {
  return text.replace(UNSAFE_CHARS, (ch) => {
    if (ch === '\n') return '\\n';
    if (ch === '\r') return '\\r';
    if (ch === '\t') return '\\t';
    return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
