import { retrievalHintFor, type SpillNoticeReader } from '@spillway/core/notice';
import type { SessionId, SpillRef } from '@spillway/core';
import { exitCodeOf, type ChildOutcome } from '../../child.js';
import { describeError } from '../../cli-error.js';
import type { CliBackend, CliContext, CommonOptions } from '../../context.js';
import type { RefusedRoot } from '../../fallback-warning.js';
import { spillHintLine } from '../../format.js';
import { jsonLine, type RunJson } from '../../json.js';
import { looksUtf8 } from '../../sink-run.js';
import { OutputScan, type FinishedScan } from './output-scan.js';
import { keepYoungGenerationSmall } from '../../young-generation.js';

/** The options of `spillway run`. */
export interface RunOptions extends CommonOptions {
  readonly maxInlineBytes: number;
  readonly session?: string;
  readonly name?: string;
  readonly maxStoredBytes?: number;
  /** The cap when the command fails (exits non-zero or by a signal), if lower. */
  readonly maxInlineBytesOnFailure?: number;
  /** Copy the head of the output to stdout as it comes (see `LiveOutput`). */
  readonly live?: boolean;
  /** Who reads the notice: picks its retrieval hint. */
  readonly noticeReader?: SpillNoticeReader;
}

/** The cap for what the command printed, given how it ended. */
export function capFor(options: RunOptions, outcome: ChildOutcome): number {
  const failed = exitCodeOf(outcome) !== 0;
  const onFailure = options.maxInlineBytesOnFailure;
  return failed && onFailure !== undefined ? Math.min(onFailure, options.maxInlineBytes) : options.maxInlineBytes;
}

/** What every route of `run` gets from the dispatcher. */
export interface RouteInput {
  readonly ctx: CliContext;
  readonly backend: CliBackend;
  readonly file: string;
  readonly args: readonly string[];
  readonly options: RunOptions;
  readonly sessionId: SessionId;
  readonly toolName: string;
  readonly maxStoredBytes: number;
  readonly onSpawn: (child: { pid?: number | undefined }) => void;
  /** The configured store could not be used, and this is the fallback root's backend. */
  readonly fallenBack?: boolean;
  /**
   * Why the configured store was given up (`failure`), the fallback roots refused before
   * this one, and this one's `path` (absent when none could be used), said once the output
   * is stored (or printed in full): an output that fits stores nothing and says nothing, as
   * the fast path of `spillway run` (`run-fast.ts`) does.
   */
  readonly givenUp?: { readonly failure: unknown; readonly refused: readonly RefusedRoot[]; readonly path?: string };
}

/** What `run` says when the output went past `--max-stored-bytes` and `file` was stopped. */
export function warnPastLimit(ctx: CliContext, file: string, limit: number, stored: number, dropped: number): Promise<void> {
  return ctx.warn(`the output went past --max-stored-bytes ${String(limit)}: its first ${String(stored)} bytes are stored, ${String(dropped)} more were dropped, and ${file} was stopped.`);
}

/** What a route shows at the end: the preview and notice of a spill, or the whole output. */
export interface Shown {
  readonly text: string;
  /** The whole output as bytes, to print exactly (not under --json). */
  readonly bytes?: Uint8Array;
  /** The spilled artifact's locator, when the output was spilled. */
  readonly locator?: string;
  readonly omittedBytes?: number;
  /** The size of the whole output in bytes, when it is in neither `text` nor `bytes`. */
  readonly storedBytes?: number;
  /** Prints the whole output, when it is neither in `text` nor in `bytes`. */
  readonly copyOut?: () => Promise<void>;
  /** Why the output is shown without a notice: storing it failed (`storeError` under --json). */
  readonly storeError?: { readonly error: unknown };
}

let policyModule: Promise<typeof import('@spillway/policy')> | undefined;

/**
 * The policy, loaded on first use. The byte-exact routes need it only for the preview,
 * once the command has ended, so it is loaded while the command runs rather than before.
 */
export function loadPolicy(): Promise<typeof import('@spillway/policy')> {
  policyModule ??= import('@spillway/policy');
  return policyModule;
}

/** Bytes kept from each end of the output for the preview: more than any cut can use. */
export function previewWindow(cap: number): number {
  return cap + 8;
}

/** Ends the run: spillway exits with the command's exit code. */
export async function finish(ctx: CliContext, file: string, outcome: ChildOutcome): Promise<void> {
  ctx.exitCode = exitCodeOf(outcome);
  if (outcome.signal !== null) await ctx.info(`${file} was ended by ${outcome.signal}`);
}

/** One line for a failure inside a warning: the CLI's wording and the stable code. */
export { failureText } from '../../fallback-warning.js';

/**
 * The preview and notice for stored output, from its first and last bytes, with the
 * policy's rules; `undefined` when even the notice does not fit the cap. Output that is
 * not UTF-8 text keeps the line that says so.
 */
export async function previewFromEnds(input: {
  /** What a scan of the whole output found, for the excerpts; ignored for binary output. */
  readonly scan?: FinishedScan | undefined;
  readonly head: Uint8Array;
  readonly tail: Uint8Array;
  readonly stored: number;
  readonly dropped: number;
  readonly maxStoredBytes: number;
  readonly cap: number;
  readonly ref: SpillRef;
  /** Who reads the notice (default: a shell with `spillway`). */
  readonly reader?: SpillNoticeReader | undefined;
}): Promise<Shown | undefined> {
  const { head, tail, stored, dropped, ref } = input;
  const oneWindow = stored <= previewWindow(input.cap);
  const preface: string[] = [];
  const text = looksUtf8(head, true, oneWindow) && looksUtf8(tail, oneWindow, true);
  if (!text) {
    preface.push(`(The output is binary or not UTF-8: ${String(stored)} bytes, stored exactly; the preview shows it decoded, with U+FFFD for invalid bytes.)`);
  }
  if (dropped > 0) {
    preface.push(`(Only the first ${String(stored)} bytes were stored: ${String(dropped)} more bytes past the ${String(input.maxStoredBytes)}-byte limit were dropped and the command was stopped.)`);
  }
  const { composeSpillPreview } = await loadPolicy();
  const decoder = new TextDecoder();
  const preview = composeSpillPreview({
    head: decoder.decode(head),
    tail: decoder.decode(tail),
    totalBytes: stored,
    maxInlineBytes: input.cap,
    locator: ref.locator,
    retrievalHint: retrievalHintFor(input.reader ?? 'spillway-cli'),
    ...(preface.length === 0 ? {} : { preface: preface.join('\n') }),
    ...(text && input.scan !== undefined ? { scan: input.scan.finish() } : {}),
  });
  return preview === undefined ? undefined : { text: preview.text, locator: ref.locator, omittedBytes: preview.omittedBytes, storedBytes: stored };
}

/** A new {@link OutputScan} for a cap, once the policy is loaded. */
export async function outputScan(cap: number): Promise<OutputScan> {
  const { createSpillPreviewScanner } = await loadPolicy();
  // A scan may run over gigabytes: its garbage must not grow the heap (see the function).
  keepYoungGenerationSmall();
  return new OutputScan(createSpillPreviewScanner(cap));
}

/** Prints what a route shows (JSON under --json), the hint line for a person, and ends the run. */
export async function show(input: RouteInput, shown: Shown, outcome: ChildOutcome, how: { readonly printed?: boolean } = {}): Promise<void> {
  const { ctx, options, file } = input;
  const textBytes = Buffer.byteLength(shown.text);
  ctx.recordUsage({
    kind: shown.locator === undefined ? 'passed' : 'spilled',
    surface: 'run',
    tool: input.toolName,
    session: input.sessionId,
    artifact: shown.locator,
    bytes: shown.storedBytes ?? shown.bytes?.byteLength ?? textBytes,
    shownBytes: shown.locator === undefined ? undefined : textBytes,
  });
  if (how.printed === true) {
    // Already on stdout (`--live`).
  } else if (options.json === true) {
    const out: RunJson = {
      text: shown.text,
      spilled: shown.locator !== undefined,
      locator: shown.locator ?? null,
      omittedBytes: shown.omittedBytes ?? null,
      exitCode: outcome.code,
      signal: outcome.signal,
      isError: exitCodeOf(outcome) !== 0,
      storeError: shown.storeError === undefined ? null : storeErrorJson(shown.storeError.error),
    };
    await ctx.print(jsonLine(out));
  } else if (shown.bytes !== undefined) {
    await ctx.printBytes(shown.bytes);
  } else if (shown.locator === undefined && shown.copyOut !== undefined) {
    await shown.copyOut();
  } else {
    // A notice ends without a newline; add one so the shell prompt starts on its own line.
    await ctx.print(shown.locator !== undefined && !shown.text.endsWith('\n') ? `${shown.text}\n` : shown.text);
  }
  // The notice speaks to a model; a person at a terminal also gets the commands to type.
  if (shown.locator !== undefined && ctx.io.stderr.isTTY === true) await ctx.note(spillHintLine(shown.locator));
  if (shown.locator !== undefined) await indexInBackground(input);
  await finish(ctx, file, outcome);
}

/** The code and message of a storage failure, as the error document on stderr would give them. */
function storeErrorJson(error: unknown): RunJson['storeError'] {
  const { code, message } = describeError(error);
  return { code, message };
}

/** A searched store's index is brought up to date in a detached child (see `auto-index.ts`). */
async function indexInBackground(input: RouteInput): Promise<void> {
  try {
    const root = await input.backend.root?.();
    if (root === undefined) return;
    const { startAutoIndex } = await import('../../auto-index.js');
    startAutoIndex(root, input.sessionId, input.ctx.io.env, input.ctx.io.homedir);
  } catch {
    // Best effort: the next search indexes it.
  }
}
