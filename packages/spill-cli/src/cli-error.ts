import { isSpillError, SpillwayError, type SpillErrorCode } from '@spillway/core';
import { EXIT_CODES, exitCodeForSpillError } from './exit-codes.js';
import { SEARCH_CACHE_ADVICE } from './search-cache-dir.js';

/**
 * An `AuditError` of `@spillway/audit`, told by its name and code as that package's
 * `isAuditError` does, without loading the audit package into every command.
 */
function isAuditFailure(error: unknown): error is Error & { readonly code: string } {
  return error instanceof Error && error.name === 'AuditError' && typeof (error as { code?: unknown }).code === 'string';
}

/**
 * The codes of failures that belong to the CLI itself rather than to a backend.
 * `BYTES_UNSUPPORTED`: the backend cannot hand back or keep bytes exactly (no
 * `reader.readBytes` for `cat`). `FILE_EXISTS`: a file the command writes only new (`--html`)
 * is already there.
 */
export type CliErrorCode = 'USAGE' | 'COMMAND_NOT_FOUND' | 'COMMAND_NOT_EXECUTABLE' | 'FAILED' | 'BYTES_UNSUPPORTED' | 'FILE_EXISTS';

/**
 * The marker that identifies a {@link CliError}. `Symbol.for` makes it the same symbol in
 * every copy of this package, so {@link isCliError} works across duplicate installs and
 * realms, where `instanceof` does not.
 */
export const CLI_ERROR_MARKER: unique symbol = Symbol.for('@spillway/cli.CliError');

/**
 * A failure the CLI detects itself (a bad argument, a command that cannot be started).
 * Backend failures stay `SpillError`s; both end up as one line on stderr. Check for one
 * with {@link isCliError}, not `instanceof`.
 */
export class CliError extends SpillwayError<CliErrorCode> {
  /** Always `true`: see {@link CLI_ERROR_MARKER}. */
  readonly [CLI_ERROR_MARKER] = true;
  /** A stable code, printed in `--json` errors. */
  declare readonly code: CliErrorCode;
  /** The process exit code this failure maps to. */
  readonly exitCode: number;

  /**
   * @param code - the stable code
   * @param message - what went wrong and what to do, in one sentence or two
   * @param exitCode - the exit code; defaults to the one that belongs to `code`
   * @param options - the underlying error, if any
   */
  constructor(code: CliErrorCode, message: string, exitCode?: number, options?: { cause?: unknown }) {
    super('CliError', code, message, options);
    this.exitCode = exitCode ?? defaultExitCode(code);
  }
}

/**
 * Tells whether `error` is a {@link CliError} from any copy of this package (another
 * install, another realm), optionally with the given `code`.
 */
export function isCliError(error: unknown, code?: CliErrorCode): error is CliError {
  if (typeof error !== 'object' || error === null) return false;
  if ((error as Record<symbol, unknown>)[CLI_ERROR_MARKER] !== true) return false;
  return code === undefined || (error as { code?: unknown }).code === code;
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
    case 'BYTES_UNSUPPORTED':
    case 'FILE_EXISTS':
      return EXIT_CODES.FAILURE;
  }
}

/**
 * What to do, from the command line, after a backend error. Backend messages are written
 * for API users; this adds the CLI's side (options, commands).
 */
const SPILL_ADVICE: Partial<Record<SpillErrorCode, string>> = {
  SPILL_UNSAFE_ROOT: '(spillway: use --root or SPILLWAY_ROOT with a private directory of yours, e.g. one made with mkdir -m 700.)',
  SPILL_INVALID_LOCATOR: '(spillway: pass the locator exactly as a spill notice or `spillway ls` printed it; `--root DIR` names the root it is under.)',
  SPILL_NOT_FOUND: '(spillway: `spillway ls` lists the artifacts that exist.)',
  SPILL_EXPIRED: '(spillway: it was removed by retention or eviction; run the command that produced it again.)',
  SPILL_INVALID_PATTERN: '(spillway: escape the special characters, or add -F to search for literal text.)',
  SPILL_TIMEOUT: '(spillway: try a simpler pattern, or -F for literal text.)',
  SPILL_NO_SPACE: '(spillway: free some space, or remove old artifacts with `spillway rm`.)',
};

/** Quotes `word` for a POSIX shell when it holds anything but plain path characters. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * Library advice in backend messages, rewritten as command-line advice. Backend messages
 * speak to API users (`literal: true`, `createRoot: true`, `timeoutMs`), which a CLI user
 * cannot pass. A rule that matches replaces the library's sentence with the CLI's own, and
 * then the generic advice of {@link SPILL_ADVICE} is not added (it would say it twice).
 */
const CLI_REWRITES: readonly { readonly pattern: RegExp; readonly replace: (...groups: string[]) => string }[] = [
  {
    // @spillway/local, a --root or SPILLWAY_ROOT that does not exist.
    pattern: /The spill root (.+) does not exist; create it with mode 0700 or pass createRoot: true\./,
    replace: (_all, dir = '') =>
      `The spill root ${dir} does not exist; create it with \`mkdir -m 700 ${shellWord(dir)}\`, or point --root or SPILLWAY_ROOT at an existing private directory.`,
  },
  {
    // An invalid or refused grep pattern (@spillway/local and @spillway/memory).
    pattern: /([Ff]ix|[Ss]implify) it, or pass literal: true to search for the (?:text as is|plain text)\./,
    replace: (_all, verb = 'Fix') => `${verb} it (escape the special characters), or use -F to search for the text as is.`,
  },
  {
    // A grep that ran out of time (@spillway/local): the CLI has no timeout option.
    pattern: /use a simpler pattern, literal: true, or a larger timeoutMs\./,
    replace: () => 'use a simpler pattern, or -F to search for the text as is.',
  },
];

/** Last resort for library wording no rule above knows: CLI words for API options. */
const CLI_WORDS: readonly (readonly [RegExp, string])[] = [
  [/,? or (?:pass )?createRoot: true/g, ''],
  [/,? or a larger timeoutMs/g, ''],
  [/\bpass literal: true\b/g, 'use -F'],
  [/\bliteral: true\b/g, '-F'],
];

/**
 * The message a CLI user should see for a backend error: library advice replaced by
 * command-line advice (see the rules above), or, when no rule applies, the backend's
 * message followed by the CLI's advice for the code. The code itself never changes.
 */
export function cliMessage(code: SpillErrorCode, message: string): string {
  let text = message.trimEnd();
  let rewritten = false;
  for (const rule of CLI_REWRITES) {
    const next = text.replace(rule.pattern, (...args: unknown[]) => rule.replace(...(args.filter((a) => typeof a === 'string'))));
    if (next !== text) {
      rewritten = true;
      text = next;
    }
  }
  for (const [pattern, words] of CLI_WORDS) text = text.replace(pattern, words);
  // The CLI's own refusals of the search index cache carry their advice already.
  const advice = rewritten || text.endsWith(SEARCH_CACHE_ADVICE) ? undefined : SPILL_ADVICE[code];
  return advice === undefined ? text : `${text} ${advice}`;
}

/** A failure reduced to what the CLI prints and returns. */
export interface DescribedError {
  /** A `SpillError` code, a {@link CliErrorCode}, an `AUDIT_*` code of `spillway audit`, or `INTERNAL` for anything unexpected. */
  readonly code: string;
  /** One line, with control characters escaped. */
  readonly message: string;
  /** The exit code. */
  readonly exitCode: number;
}

/** Reduces any thrown value to a code, a one-line message and an exit code. */
export function describeError(error: unknown): DescribedError {
  if (isSpillError(error)) {
    return { code: error.code, message: oneLine(cliMessage(error.code, error.message)), exitCode: exitCodeForSpillError(error.code) };
  }
  if (isCliError(error)) {
    return { code: error.code, message: oneLine(error.message), exitCode: error.exitCode };
  }
  if (isAuditFailure(error)) {
    const exitCode = error.code === 'AUDIT_NOT_FOUND' ? EXIT_CODES.NOT_FOUND : error.code === 'AUDIT_INVALID_OPTION' ? EXIT_CODES.USAGE : EXIT_CODES.FAILURE;
    return { code: error.code, message: oneLine(error.message), exitCode };
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
