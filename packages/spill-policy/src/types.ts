import type { SpillNoticeReader } from '@spillway/core/notice';
import type { SpillBackend } from '@spillway/core';

/**
 * One tool call, as the harness describes it. Any harness maps onto this shape; see the
 * README for MCP and the Vercel AI SDK.
 */
export interface ToolExecution {
  /** The tool's name, such as `bash` or `web_fetch`. Matched against `skipTools`. */
  readonly toolName: string;
  /** The harness's id for this call. Must be non-empty for a spill to happen. */
  readonly callId: string;
  /** The conversation. Without one, nothing is spilled (event reason `no-session`). */
  readonly sessionId?: string;
  /** Set (non-empty) when this call runs inside another tool call: never spilled. */
  readonly parentCallId?: string;
}

/** A text block. */
export interface TextContentBlock {
  /** Always `'text'`. */
  readonly type: 'text';
  /** The text the model sees. */
  readonly text: string;
}

/**
 * One piece of tool output: text, or any other kind (image, audio, resource…). A result
 * with any non-text block is never spilled.
 */
export type ContentBlock = TextContentBlock | { readonly type: string; readonly [key: string]: unknown };

/** What a tool returned. */
export interface ToolResult {
  /** The blocks the model would see. */
  readonly content: readonly ContentBlock[];
  /** True when the tool failed. The policy never changes it. */
  readonly isError?: boolean;
}

/**
 * What a post-tool hook decided. `accept` with `content` replaces the content the model
 * sees; `accept` with `value` replaces the result with a value (never spilled); any other
 * kind (`block`, `deny`, …) is passed through untouched.
 */
export type PostToolDecision =
  | { readonly kind: 'accept'; readonly content?: readonly ContentBlock[]; readonly value?: unknown }
  | { readonly kind: string; readonly [key: string]: unknown };

/**
 * Why a spill did not happen although the result was over the cap.
 *
 * - `invalid-execution`: the execution has no usable `toolName`/`callId` (not strings, or an empty call id).
 * - `no-session`: the execution has no `sessionId`.
 * - `no-backend`: the policy was created without a backend.
 * - `notice-too-large`: `maxInlineBytes` cannot hold even the notice alone.
 * - `save-threw`: the backend's save threw synchronously.
 * - `save-rejected`: the save rejected (any value).
 * - `malformed-ref`: the save resolved with something that is not a valid `SpillRef`, or
 *   whose `bytes` differs from the bytes the policy handed over.
 * - `timeout`: the save did not settle within `saveTimeoutMs` (it was aborted).
 */
export type SpillKeptReason =
  | 'invalid-execution'
  | 'no-session'
  | 'no-backend'
  | 'notice-too-large'
  | 'save-threw'
  | 'save-rejected'
  | 'malformed-ref'
  | 'timeout';

/** The result was stored and the model sees a preview and a notice. */
export interface SpillSpilledEvent {
  /** Discriminant. */
  readonly type: 'spilled';
  /** The execution's `toolName`. */
  readonly toolName: string;
  /** The execution's `callId` (empty when it had none usable). */
  readonly callId: string;
  /** UTF-8 size of the full result that was stored. */
  readonly bytes: number;
  /** UTF-8 bytes of the original shown in the preview (head plus tail). */
  readonly shownBytes: number;
  /** Where the full result is. */
  readonly locator: string;
  /** How long the save took, in milliseconds. */
  readonly ms: number;
  /**
   * @deprecated Never set any more. A stream whose notice does not fit now reads the
   * original back (a `kept` event, as `apply` gives) or answers a preview within the cap (a
   * `truncated` event with reason `notice-too-large`); it never answers over the cap.
   */
  readonly overCap?: true;
}

/** The result was over the cap but was left as it was. */
export interface SpillKeptEvent {
  /** Discriminant. */
  readonly type: 'kept';
  /** The execution's `toolName`. */
  readonly toolName: string;
  /** The execution's `callId` (empty when it had none usable). */
  readonly callId: string;
  /** Why; see {@link SpillKeptReason}. */
  readonly reason: SpillKeptReason;
  /** UTF-8 size of the result. */
  readonly bytes: number;
  /** The underlying error or rejection value, when there is one. */
  readonly error?: unknown;
  /**
   * For `notice-too-large` after a save: the artifact that was stored but is not
   * referenced, since the model sees the original instead.
   */
  readonly locator?: string;
  /**
   * With `locator`: true when the policy deleted that artifact through the backend's
   * `catalog` (best effort, within `saveTimeoutMs`); false when the backend has no catalog
   * or the delete failed, answered "already gone", or timed out (retention removes it later).
   */
  readonly removed?: boolean;
}

/**
 * Streams only: the stream can no longer give the model the whole output, and cannot give
 * it a notice either, so the model sees the head and tail (within the cap) and a note.
 *
 * - `save-rejected`, `malformed-ref`, `timeout`: the save failed after part of the output
 *   had been handed to the backend and released from memory; no copy exists.
 * - `notice-too-large`: the save succeeded but the notice naming `locator` does not fit in
 *   `maxInlineBytes`, and the original could not be read back (the backend has no
 *   `reader`, or the read failed: `error`). The artifact is kept, as it is the only full
 *   copy; `locator` names it.
 */
export interface SpillTruncatedEvent {
  /** Discriminant. */
  readonly type: 'truncated';
  /** The execution's `toolName`. */
  readonly toolName: string;
  /** The execution's `callId` (empty when it had none usable). */
  readonly callId: string;
  /** Why: `save-rejected`, `malformed-ref`, `timeout` or `notice-too-large`. */
  readonly reason: SpillKeptReason;
  /** UTF-8 size of the whole output. */
  readonly bytes: number;
  /** UTF-8 bytes of the output that the model still sees. */
  readonly shownBytes: number;
  /** The underlying error or rejection value, when there is one. */
  readonly error?: unknown;
  /** For `notice-too-large`: where the full output is stored (the model is not told). */
  readonly locator?: string;
}

/** Everything `onEvent` can receive. */
export type SpillEvent = SpillSpilledEvent | SpillKeptEvent | SpillTruncatedEvent;

/** What a preview is made of: see {@link SpillPolicyOptions.preview}. */
export type SpillPreviewStyle = 'salient' | 'head-tail';

/** Configuration for {@link createSpillPolicy}. */
export interface SpillPolicyOptions {
  /** Where full results go. Absent: every spill attempt keeps the original (`no-backend`). */
  readonly backend?: SpillBackend | undefined;
  /**
   * The cap, in UTF-8 bytes, on what the model sees from one result. Omitted: the policy
   * is disabled (identity; the backend is never touched). Must be a non-negative integer.
   */
  readonly maxInlineBytes?: number | undefined;
  /** Tools whose results are never spilled. Default `['read']`. */
  readonly skipTools?: readonly string[] | undefined;
  /**
   * An upper bound on the preview (head + marker + tail) in UTF-8 bytes, below what the
   * cap allows. 0 shows the notice alone. Must be a non-negative integer.
   */
  readonly previewBytes?: number | undefined;
  /**
   * What the preview is made of. `'salient'` (the default): a one-line header, the head,
   * verbatim excerpts of the lines that matter (errors, failed assertions, compiler
   * diagnostics, each labelled with its line number), the tail, and for JSON its shape;
   * with nothing salient it is exactly the head and tail. `'head-tail'`: only the head and
   * the tail, byte for byte as before excerpts existed.
   */
  readonly preview?: SpillPreviewStyle | undefined;
  /**
   * How long a save may take before it is aborted and the result kept. Default 10 000.
   * Must be an integer from 1 to 2 147 483 647 (the largest timer delay).
   */
  readonly saveTimeoutMs?: number | undefined;
  /** Receives every spill and non-spill. It may throw or reject; the call is unaffected. */
  readonly onEvent?: ((event: SpillEvent) => void) | undefined;
  /**
   * Who reads the notice, named by what they can call to get the full result back; it picks
   * the notice's retrieval hint (one of `RETRIEVAL_HINTS` in `@spillway/core/notice`), so
   * the notice names tools the reader really has:
   *
   * - `'spill-tools'`: the surface offers `spill_read` and `spill_grep` (the MCP proxy, the
   *   framework adapters); `'spill-tools-and-search'` where it offers `spill_search` too;
   * - `'spillway-cli'`: an agent or a person at a shell, who has `spillway read`, `grep`, `cat`;
   * - `'file-tools'`: a model with file tools (`read`, `grep`), for artifacts that are files.
   *
   * Omitted: the backend's own `retrievalHint` (a local file names `read`/`grep`, an
   * in-memory or S3 artifact names the `spill_*` tools). The notice's format is unchanged,
   * so `parseSpillNotice` reads it either way.
   */
  readonly noticeReader?: SpillNoticeReader | undefined;
}

/** Feeds output that arrives in pieces (command output) through the policy. */
export interface SpillStream {
  /**
   * Adds a chunk. Resolves once the chunk is accepted; while a spill is streaming into
   * the backend it waits for the backend to take earlier chunks (backpressure).
   * Rejects with a `TypeError` for a non-string chunk or after `finish()`, and with
   * `SPILL_ABORTED` after `abort()`.
   */
  push(chunk: string): Promise<void>;
  /**
   * Ends the input and resolves with the result for the model: the whole text as one
   * text block, or preview + notice, exactly as `applyToResult` would give for the
   * concatenated text (see the README for the two cases a stream cannot match).
   * Never rejects because of the backend; rejects with `SPILL_ABORTED` after `abort()`.
   */
  finish(options?: { readonly isError?: boolean }): Promise<ToolResult>;
  /**
   * Cancels: an in-flight save is aborted through its signal (so it publishes nothing)
   * and awaited for at most `saveTimeoutMs`. Later `push`/`finish` calls reject with
   * `SPILL_ABORTED`. Calling it again does nothing.
   */
  abort(reason?: unknown): Promise<void>;
}

/** The policy: decides, per tool result, whether to spill. */
export interface SpillPolicy {
  /** False when `maxInlineBytes` was omitted: everything passes through untouched. */
  readonly enabled: boolean;
  /**
   * Applies the policy to a result and the hook's decision so far. Resolves with the
   * decision unchanged (or `{ kind: 'accept' }` when none was given), or with an accept
   * whose content is one text block: preview + notice. Never rejects, never mutates.
   */
  apply(exec: ToolExecution, result: ToolResult, decision?: PostToolDecision): Promise<PostToolDecision>;
  /**
   * The same decision for harnesses without hook decisions: resolves with `result`
   * itself, or a copy whose `content` is the one replacement block (other fields, such as
   * `isError`, kept). Never rejects, never mutates.
   */
  applyToResult(exec: ToolExecution, result: ToolResult): Promise<ToolResult>;
  /** Starts a stream for output that arrives in pieces. */
  stream(exec: ToolExecution): SpillStream;
}
