import type { GrepResult, ReadResult, SpillEntry, SpillRef } from '@spillway/core';

// The `--json` shapes. They are a public contract (docs/cli.md): fields may be added,
// never renamed or removed, and optional values are `null` rather than absent.

/** `spillway run --json`: what the model would see, and how the command ended. */
export interface RunJson {
  /** The result text: the full output, or the preview plus the notice. */
  readonly text: string;
  /** Whether the text carries a spill notice. */
  readonly spilled: boolean;
  /** The spilled artifact's locator, or `null` when nothing was spilled. */
  readonly locator: string | null;
  /** Bytes of output not shown in `text`, or `null` when nothing was spilled. */
  readonly omittedBytes: number | null;
  /** The command's exit code, or `null` when a signal ended it. */
  readonly exitCode: number | null;
  /** The signal that ended the command, such as `SIGTERM`, or `null`. */
  readonly signal: string | null;
  /** True when the command did not exit 0. */
  readonly isError: boolean;
  /**
   * Why the output was not stored, when storing it failed (`text` then holds the whole
   * output, or its head and tail when even that could not be kept); `null` otherwise.
   */
  readonly storeError: { readonly code: string; readonly message: string } | null;
}

/** `spillway save --json`. */
export interface SaveJson {
  /** The artifact's locator. */
  readonly locator: string;
  /** The exact UTF-8 size stored. */
  readonly bytes: number;
  /** How to get it back. */
  readonly retrievalHint: string;
  /** The notice a model would see for it. */
  readonly notice: string;
}

/** `spillway read --json`. */
export interface ReadJson {
  readonly locator: string;
  /** The lines, verbatim with their terminators. */
  readonly text: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly truncated: boolean;
  readonly hasMore: boolean;
  /** The `--offset` to continue with, or `null`. */
  readonly nextOffset: number | null;
  readonly totalBytes: number;
  /** True when the answer stopped before the end of the artifact (the same as `hasMore`). */
  readonly stoppedEarly: boolean;
  /** When `stoppedEarly`, what to do to see the rest (the `--offset` to continue with, or `spillway cat`); else `null`. */
  readonly continueWith: string | null;
}

/** One match in {@link GrepJson}. */
export interface GrepMatchJson {
  readonly line: number;
  readonly text: string;
  readonly truncated: boolean;
}

/** `spillway grep --json`. */
export interface GrepJson {
  readonly locator: string;
  readonly pattern: string;
  readonly matches: readonly GrepMatchJson[];
  readonly limitReached: boolean;
  readonly totalBytes: number;
}

/** One entry in `spillway ls --json`. */
export interface LsEntryJson {
  readonly locator: string;
  readonly bytes: number;
  /** ISO 8601, UTC, with milliseconds. */
  readonly createdAt: string;
  /** The backend's opaque key for the session. */
  readonly session: string;
}

/** `spillway rm --json`. */
export interface RmJson {
  readonly locator: string;
  /** False when the artifact was already gone (only with `--force`). */
  readonly removed: boolean;
}

/** What `--json` writes to stderr when a command fails. */
export interface ErrorJson {
  readonly error: {
    /** A `SPILL_*` code, `USAGE`, `COMMAND_NOT_FOUND`, `COMMAND_NOT_EXECUTABLE`, `FAILED`, `BYTES_UNSUPPORTED`, `FILE_EXISTS`, an `AUDIT_*` code or `INTERNAL`. */
    readonly code: string;
    readonly message: string;
    readonly exitCode: number;
  };
}

/** Builds {@link ReadJson}; `stoppedNote` says how to go on when the answer stopped early. */
export function readJson(locator: string, result: ReadResult, stoppedNote?: string): ReadJson {
  return {
    locator,
    text: result.text,
    startLine: result.startLine,
    endLine: result.endLine,
    truncated: result.truncated,
    hasMore: result.hasMore,
    nextOffset: result.nextOffset ?? null,
    totalBytes: result.totalBytes,
    stoppedEarly: result.hasMore,
    continueWith: result.hasMore ? (stoppedNote?.replace(/^spillway: /, '') ?? null) : null,
  };
}

/** Builds {@link GrepJson}. */
export function grepJson(locator: string, pattern: string, result: GrepResult): GrepJson {
  return {
    locator,
    pattern,
    matches: result.matches.map((m) => ({ line: m.line, text: m.text, truncated: m.truncated })),
    limitReached: result.limitReached,
    totalBytes: result.totalBytes,
  };
}

/** Builds {@link LsEntryJson}. */
export function lsEntryJson(entry: SpillEntry): LsEntryJson {
  return {
    locator: entry.locator,
    bytes: entry.bytes,
    createdAt: entry.createdAt.toISOString(),
    session: entry.session,
  };
}

/** Builds {@link SaveJson}. */
export function saveJson(ref: SpillRef, notice: string, retrievalHint: string): SaveJson {
  return { locator: ref.locator, bytes: ref.bytes, retrievalHint, notice };
}

/** Serialises one JSON document as a single line. */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
