import type { CallId, SessionId, SpillLocator } from './brand.js';
import type { SPILL_BACKEND_SPECIFICATION_VERSION } from './specification-version.js';

/** The type of {@link SPILL_BACKEND_SPECIFICATION_VERSION}: the one seam version this release speaks. */
export type SpillBackendSpecificationVersion = typeof SPILL_BACKEND_SPECIFICATION_VERSION;

/** Who an artifact belongs to. Used to group and isolate artifacts, never to grant access. */
export interface SpillOwner {
  /** The conversation the artifact belongs to. */
  readonly sessionId: SessionId;
}

/** What produced the content. Descriptive only (naming, inspection), never access control. */
export interface SpillSource {
  /** The tool that produced the result, such as `web_fetch`. */
  readonly toolName: string;
  /** The harness's id for the call. */
  readonly callId: CallId;
  /** A free-form label for people, such as `"stdout of npm test"`. */
  readonly label?: string;
}

/** A request to store one complete text. */
export interface SaveTextSpill {
  /** Who owns the artifact. */
  readonly owner: SpillOwner;
  /** What produced it. */
  readonly source: SpillSource;
  /**
   * A hint for a readable artifact name, such as `web_fetch.txt`. It is never a path: a
   * backend reduces it to something safe or ignores it, and it never changes where data
   * goes.
   */
  readonly suggestedName: string;
  /** The full text. It is stored verbatim, as UTF-8. */
  readonly content: string;
}

/** A request to store text that arrives in pieces (command output, for example). */
export interface SaveTextStreamSpill extends Omit<SaveTextSpill, 'content'> {
  /** The text, chunk by chunk. The stored artifact is the concatenation of the chunks. */
  readonly content: Iterable<string> | AsyncIterable<string>;
}

/**
 * A request to store raw bytes that arrive in pieces (command output that may be binary).
 * The same as {@link SaveTextStreamSpill} except for the content.
 */
export interface SaveBytesStreamSpill extends Omit<SaveTextSpill, 'content'> {
  /**
   * The bytes, chunk by chunk. The stored artifact is exactly the concatenation of the
   * chunks, byte for byte: nothing is decoded, so invalid UTF-8 and NUL bytes survive. A
   * backend may keep a reference to a chunk until the save settles, so a producer that
   * reuses one buffer yields a copy.
   */
  readonly content: Iterable<Uint8Array> | AsyncIterable<Uint8Array>;
}

/** What a successful save returns. */
export interface SpillRef {
  /** Where the artifact is; shown to the model and accepted by the backend's reader. */
  readonly locator: SpillLocator;
  /** The exact UTF-8 length of what was stored. */
  readonly bytes: number;
  /** One sentence telling the model how to get the content back. */
  readonly retrievalHint: string;
}

/** Options common to every backend call. */
export interface SpillCallOptions {
  /** Cancels the call. A save cancelled before it is published publishes nothing. */
  readonly signal?: AbortSignal;
}

/**
 * The seam: a place that stores text and hands back a locator. Every save either
 * persists the **full** content verbatim and resolves, or rejects with a `SpillError` and
 * publishes nothing (no locator, no partial artifact).
 */
export interface SpillBackend {
  /**
   * The version of this interface the backend implements: always
   * {@link SPILL_BACKEND_SPECIFICATION_VERSION} (`'v1'`) for this release of core. A
   * consumer that takes a backend from outside (the policy, search, the CLI's backend
   * registry) checks it with {@link assertSpillBackendVersion} and refuses a backend that
   * declares another version, or none, with `SPILL_INVALID_INPUT` rather than call methods
   * whose contract it does not know. A change that old consumers could misread gets a new
   * literal; optional members added later keep `'v1'`.
   */
  readonly specificationVersion: SpillBackendSpecificationVersion;
  /** A short, stable name for logs and events, such as `local` or `memory`. */
  readonly name: string;
  /** Stores a complete string. */
  saveText(input: SaveTextSpill, options?: SpillCallOptions): Promise<SpillRef>;
  /** Stores text chunk by chunk, with memory bounded by the chunk size, not the total. */
  saveTextStream(input: SaveTextStreamSpill, options?: SpillCallOptions): Promise<SpillRef>;
  /** Reading back, when the backend supports it. */
  readonly reader?: SpillReader;
  /** Listing and deleting, when the backend supports it. */
  readonly catalog?: SpillCatalog;
  /**
   * Stores raw bytes exactly as given, chunk by chunk, with memory bounded by the chunk
   * size (or the backend's own bound), when the backend can keep bytes that are not
   * UTF-8. The same contract as {@link SpillBackend.saveTextStream}: the full content or
   * a rejection that publishes nothing. `SpillRef.bytes` is the number of bytes stored.
   * Callers feature-detect it (`backend.saveBytesStream !== undefined`); a backend without
   * it can only store text.
   *
   * @throws SpillError as `saveTextStream` does; `SPILL_STREAM_FAILED` when the stream
   * throws or yields something that is not a `Uint8Array`.
   */
  saveBytesStream?(input: SaveBytesStreamSpill, options?: SpillCallOptions): Promise<SpillRef>;
  /**
   * Where a persistent search index of this backend's artifacts belongs: the path of a
   * directory beside the backend's own data on this host (the local backend answers
   * `<root>.search`, a sibling of its root), which a searcher creates private and names
   * its files in. `undefined` when the backend has no such place (memory, an object
   * store): a searcher then keeps its index in memory, or where its caller says. The
   * answer is a place for derived data only; nothing in it is ever an artifact. Optional:
   * a backend without it is treated as answering `undefined`, and a consumer asks this
   * member rather than guess from the backend's `name`.
   *
   * @throws SpillError as the backend's saves do when its storage cannot be used (the
   * local backend: `SPILL_UNSAFE_ROOT` for an unsafe root).
   */
  indexHome?(options?: SpillCallOptions): Promise<string | undefined>;
}

/** Default number of lines {@link SpillReader.read} returns. */
export const DEFAULT_READ_LIMIT = 2000;
/** Default byte cap on one {@link SpillReader.read} answer. */
export const DEFAULT_READ_MAX_BYTES = 32 * 1024;
/** Default number of matches {@link SpillReader.grep} returns. */
export const DEFAULT_GREP_MAX_MATCHES = 100;
/** Default byte cap on the text of one grep match. */
export const DEFAULT_GREP_MAX_LINE_BYTES = 512;
/** Default time budget for one grep. */
export const DEFAULT_GREP_TIMEOUT_MS = 5000;
/** The longest grep pattern (literal or not) a reader accepts, in UTF-16 code units. */
export const MAX_GREP_PATTERN_LENGTH = 4096;

/**
 * Options for {@link SpillReader.read}.
 *
 * Lines are separated by `\n`; a `\r` before it stays part of the line's text. A final
 * line without a terminator is still a line, and a trailing `\n` does not start a new
 * one: `"a\nb"` and `"a\nb\n"` both have 2 lines, `""` has 0.
 *
 * `offset` must be an integer ≥ 1, `limit` and `maxBytes` integers ≥ 0, `signal` an
 * `AbortSignal`, and the options argument an object when given; anything else (0,
 * negative, fractional, NaN, a string) rejects with `SPILL_INVALID_INPUT`. With `limit: 0` the
 * answer is empty and `nextOffset` equals `offset`. When `maxBytes` is smaller than the
 * first character of the first line, nothing fits: `text` is empty, `endLine` is
 * `startLine - 1`, `truncated` is `true`, `hasMore` is `true`, and `nextOffset` is absent
 * (paging on with the same `maxBytes` could never make progress; ask for more bytes).
 */
export interface ReadOptions extends SpillCallOptions {
  /** 1-based number of the first line to return. Default 1. */
  readonly offset?: number;
  /** How many lines to return at most. Default {@link DEFAULT_READ_LIMIT}. 0 returns none. */
  readonly limit?: number;
  /** Byte cap on `text`. Default {@link DEFAULT_READ_MAX_BYTES}. */
  readonly maxBytes?: number;
  /**
   * Where line `offset` starts, in bytes from the artifact's start, when the caller learnt
   * it from this very artifact (a search index records it for each chunk): the reader may
   * start there instead of counting lines, which on a large artifact read cold means
   * scanning everything before `offset`. It must be an integer ≥ 0 (else
   * `SPILL_INVALID_INPUT`). A position that is not a line start (the byte before it is not
   * a `\n`, or it is not 0 for line 1) is ignored; one that is a line start but not line
   * `offset`'s answers the lines from there, so pass only what the artifact told you.
   */
  readonly offsetByte?: number;
}

/** The answer to {@link SpillReader.read}. */
export interface ReadResult {
  /**
   * The lines, verbatim with their terminators, cut to at most `maxBytes` UTF-8 bytes
   * (never inside a code point; at a line end when at least one whole line fits).
   */
  readonly text: string;
  /** The 1-based number of the first line in `text` (the requested offset). */
  readonly startLine: number;
  /**
   * The number of the last line that `text` includes, wholly or partly; `startLine - 1`
   * when `text` holds no line.
   */
  readonly endLine: number;
  /** True when the last line in `text` was cut short by `maxBytes`. */
  readonly truncated: boolean;
  /** True when the artifact holds content after what `text` shows. */
  readonly hasMore: boolean;
  /**
   * The line to pass as `offset` to continue, when `hasMore` and the cut was at a line end
   * (or `limit` was 0). Always greater than `startLine` except for `limit: 0`, so a client
   * paging by `nextOffset` always makes progress; absent when the cut fell inside a line.
   */
  readonly nextOffset?: number;
  /** The artifact's full size in UTF-8 bytes. */
  readonly totalBytes: number;
}

/**
 * Options for {@link SpillReader.grep}.
 *
 * Every option is checked the same way on every backend: `maxMatches` and
 * `maxLineBytes` must be integers ≥ 0, `timeoutMs` a finite number > 0, `ignoreCase` and
 * `literal` booleans, `signal` an `AbortSignal`, and the options argument itself an object
 * when given; anything else rejects with `SPILL_INVALID_INPUT`.
 */
export interface GrepOptions extends SpillCallOptions {
  /** Stop after this many matching lines. Default {@link DEFAULT_GREP_MAX_MATCHES}. */
  readonly maxMatches?: number;
  /** Match without regard to case. */
  readonly ignoreCase?: boolean;
  /** Treat the pattern as a literal string rather than a regular expression. */
  readonly literal?: boolean;
  /** Byte cap on each match's text. Default {@link DEFAULT_GREP_MAX_LINE_BYTES}. */
  readonly maxLineBytes?: number;
  /**
   * Time budget in milliseconds, a finite number > 0. Default
   * {@link DEFAULT_GREP_TIMEOUT_MS}. When it runs out, grep rejects with `SPILL_TIMEOUT`;
   * nothing (a hostile pattern, a case-insensitive literal, a huge artifact) can hang the
   * process.
   */
  readonly timeoutMs?: number;
}

/** One matching line. */
export interface GrepMatch {
  /** The 1-based line number. */
  readonly line: number;
  /**
   * The line without its `\n` (a `\r` before it stays, as in `read`), or, when it is
   * longer than `maxLineBytes`, a window of the line that contains the first match.
   */
  readonly text: string;
  /** True when `text` is only part of the line. */
  readonly truncated: boolean;
}

/** The answer to {@link SpillReader.grep}. */
export interface GrepResult {
  /** Matching lines in file order. */
  readonly matches: readonly GrepMatch[];
  /**
   * True when `maxMatches` stopped the search before the end. When exactly `maxMatches`
   * lines match, a backend may answer either value.
   */
  readonly limitReached: boolean;
  /** The artifact's full size in UTF-8 bytes. */
  readonly totalBytes: number;
}

/**
 * Retrieval: the optional capability behind `spill_read`/`spill_grep` tools and the CLI.
 * A locator passed in is untrusted input; a forged one answers `SPILL_INVALID_LOCATOR`
 * or `SPILL_NOT_FOUND` and never reaches anything the backend does not own.
 */
export interface SpillReader {
  /**
   * Reads a line range, capped at `maxBytes` so that a retrieval is never itself too
   * large to inline. Offsets past the end answer an empty `text`, not an error. Bad
   * options reject with `SPILL_INVALID_INPUT` (checked first); a locator that is not a
   * string rejects with `SPILL_INVALID_LOCATOR`.
   */
  read(locator: SpillLocator, options?: ReadOptions): Promise<ReadResult>;
  /**
   * Finds matching lines. The pattern is a regular expression in **RE2 syntax** (the
   * dialect of ripgrep and Go: no backreferences, no lookaround; `(?i)`, `\pL`,
   * `[[:alpha:]]` and `\Q…\E` are available) unless `literal` is set. It is matched
   * against each line's text without its `\n` (a `\r` stays): `^`/`$` are the line's
   * start and end, `.` is any character but `\n`, `\s` is `[\t\n\f\r ]`, and `\d`, `\w`,
   * `\b` are ASCII. A pattern RE2 can express always gets its answer (matching takes
   * linear time), never a refusal for being too complex.
   *
   * A pattern that is not a string, is longer than {@link MAX_GREP_PATTERN_LENGTH}, holds
   * a lone surrogate, or (unless `literal`) is not valid RE2 syntax rejects with
   * `SPILL_INVALID_PATTERN`. A locator that is not a string rejects with
   * `SPILL_INVALID_LOCATOR`. Options are checked first, then the pattern, then the signal,
   * then the locator.
   */
  grep(locator: SpillLocator, pattern: string, options?: GrepOptions): Promise<GrepResult>;
  /**
   * The artifact's stored bytes, whole and exactly as stored (binary included), streamed
   * in chunks so that memory stays bounded however large the artifact is. The locator is
   * checked as `read` checks it and fails with the same codes (`SPILL_INVALID_LOCATOR`,
   * `SPILL_NOT_FOUND`, `SPILL_EXPIRED`); bad options reject with `SPILL_INVALID_INPUT`, and
   * a fired `signal` with `SPILL_ABORTED`. Errors surface from the iteration (the first
   * `next()`), and leaving the loop early releases what the reader holds. Optional:
   * callers feature-detect it (`reader.readBytes !== undefined`).
   */
  readBytes?(locator: SpillLocator, options?: SpillCallOptions): AsyncIterable<Uint8Array>;
}

/** One artifact as the catalog sees it. */
export interface SpillEntry {
  /** The artifact's locator. */
  readonly locator: SpillLocator;
  /** Its exact size in UTF-8 bytes. */
  readonly bytes: number;
  /** When it was published. */
  readonly createdAt: Date;
  /**
   * The backend's opaque key for the owning session (a hash, such as `session-3f9c…`):
   * equal for every artifact of one session. The session id itself is not recoverable.
   */
  readonly session: string;
}

/**
 * A part of the inventory that a listing refused or could not read, such as a session
 * directory that is group-writable, owned by another user or a symbolic link. The listing
 * skips it, goes on with everything else, and reports it through
 * {@link ListOptions.onProblem}.
 */
export interface SpillListProblem {
  /** The backend's key of the skipped session (as in {@link SpillEntry.session}), when known. */
  readonly session?: string;
  /** What was skipped, for people: a path or a description. */
  readonly where: string;
  /** Why: usually a `SpillError` such as `SPILL_UNSAFE_ROOT` or `SPILL_STORAGE_FAILED`. */
  readonly error: unknown;
}

/** Options for {@link SpillCatalog.list}. */
export interface ListOptions extends SpillCallOptions {
  /** Only this session's artifacts. Omitted: every session's. */
  readonly sessionId?: SessionId;
  /**
   * Called once for each part of the inventory the listing skips (see
   * {@link SpillListProblem}); the listing goes on with the rest. Omitted: the listing
   * still yields everything else, then rejects with the first problem's error, so a caller
   * that does not handle problems still learns of them. A problem with the whole store
   * (an unsafe root, say) always rejects the listing. An exception thrown by the callback
   * is ignored.
   */
  readonly onProblem?: (problem: SpillListProblem) => void;
}

/** What {@link SpillCatalog.sweepTemp} removed. */
export interface SweepTempResult {
  /** How many leftover temporary files were removed. */
  readonly removed: number;
  /** Their total size in bytes. */
  readonly bytes: number;
  /**
   * Parts of the store that were skipped (an unusable session directory, say), when any;
   * everything else was swept.
   */
  readonly problems?: readonly SpillListProblem[];
}

/**
 * The state of one session's listing, from {@link SpillCatalog.listingVersion}: while a
 * later call answers the same `token`, `list` of that session answers the same entries.
 */
export interface SpillListingVersion {
  /** The backend's key of the session, as in {@link SpillEntry.session}. */
  readonly scope: string;
  /** Opaque; equal only while the session's listing is unchanged. */
  readonly token: string;
}

/**
 * Inventory: the optional capability behind retention and `spillway ls`/`rm`.
 */
export interface SpillCatalog {
  /**
   * Streams entries, without loading every entry (or any content) into memory. A listing
   * holds no scarce resource (descriptor, lock, permit) while its consumer works between
   * two entries, so a consumer may save, read and delete on the same backend while it
   * iterates, and a listing abandoned half-way pins nothing. A part of the inventory that
   * cannot be walked (one unusable session, say) is skipped and reported through
   * {@link ListOptions.onProblem} rather than ending the listing.
   */
  list(options?: ListOptions): AsyncIterable<SpillEntry>;
  /**
   * Deletes one artifact. Resolves `true` when it was removed and `false` when it was
   * already gone; a forged locator rejects with `SPILL_INVALID_LOCATOR`.
   */
  delete(locator: SpillLocator, options?: SpillCallOptions): Promise<boolean>;
  /**
   * Removes temporary files that a crashed save left behind, older than `olderThanMs`.
   * Backends with no temporary state omit it.
   */
  sweepTemp?(options: { readonly olderThanMs: number } & SpillCallOptions): Promise<SweepTempResult>;
  /**
   * A cheap check of one session's listing, for a caller that keeps what `list` answered
   * (a search index): the same token later means `list` would answer the same entries, so
   * the caller may skip listing. `undefined` when the backend cannot vouch for the state
   * now (no such session, or one that changed too recently to tell a later change from
   * it): then the caller lists. Problems are those of `list` (an unsafe session directory
   * rejects). Backends that cannot tell cheaply omit it.
   */
  listingVersion?(options: { readonly sessionId: SessionId } & SpillCallOptions): Promise<SpillListingVersion | undefined>;
}
