import { SpillError, throwIfAborted } from '@spillway/core';
import type { GrepMatch, GrepResult } from '@spillway/core';
import { DEFAULT_PREFERRED_READ_BYTES, readExactly } from './byte-source.js';
import type { SpillByteSource } from './byte-source.js';
import type { CompiledPattern } from './dialect.js';
import type { LineIndex } from './line-index.js';
import type { GrepSettings } from './options.js';
import { matchWindow, scanBlock } from './scan-text.js';
import type { BlockResult, BlockScan, FirstMatch } from './scan-text.js';
import { decodeUtf8, isContinuation } from './utf8.js';
import type { RegexWorkerPool, WorkerLease } from './worker-pool.js';

const NEWLINE = 0x0a;
/** Bytes searched per step by a worker or a byte search. */
const BLOCK_BYTES = 4 * 1024 * 1024;
/** Bytes searched per step in-process by the linear engine (a time slice). */
const SLICE_BYTES = 512 * 1024;
/** A line longer than this is searched in pieces of this size (a documented limit). */
export const MAX_LINE_SPAN = 16 * 1024 * 1024;
/** Hand the event loop back at least this often (ms) while searching in-process. */
const YIELD_EVERY_MS = 20;

/** The native engine's time for one block: a floor plus a generous rate (20 MB/s). */
function nativeBudgetMs(bytes: number): number {
  return 40 + bytes / 20_000;
}

type NodeBuffer = Uint8Array & {
  indexOf(value: Uint8Array | number, byteOffset?: number): number;
  lastIndexOf(value: number, byteOffset?: number): number;
};
type BufferCtor = { from(data: ArrayBufferLike | string, offset?: number, length?: number): NodeBuffer };
const NodeBufferCtor = (globalThis as { Buffer?: BufferCtor }).Buffer;

function asBuffer(bytes: Uint8Array): NodeBuffer | undefined {
  return NodeBufferCtor?.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** What {@link grepSource} needs besides the source. */
export interface GrepRun {
  readonly pattern: string;
  readonly compiled: CompiledPattern;
  readonly settings: GrepSettings;
  readonly pool: RegexWorkerPool;
  readonly now: () => number;
}

function timeoutError(ms: number): SpillError {
  return new SpillError('SPILL_TIMEOUT', `grep gave up after ${ms} ms; search for something more specific, use literal: true, or pass a larger timeoutMs.`);
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** A case-sensitive literal searched as bytes (Node's `Buffer.indexOf`, linear). */
function scanLiteralBytes(buf: NodeBuffer, end: number, needle: NodeBuffer, needleText: string, scan: BlockScan): BlockResult {
  const matches: GrepMatch[] = [];
  let i = 0;
  let counted = 0;
  let line = scan.firstLine;
  while (i < end) {
    const m = buf.indexOf(needle, i);
    if (m === -1 || m + needle.length > end) break;
    let ls = m === 0 ? 0 : buf.lastIndexOf(NEWLINE, m - 1) + 1;
    if (ls < i) ls = i;
    let le = buf.indexOf(NEWLINE, m);
    if (le === -1 || le >= end) le = end;
    for (let k = buf.indexOf(NEWLINE, counted); k !== -1 && k < ls; k = buf.indexOf(NEWLINE, k + 1)) line++;
    counted = ls;
    if (line !== scan.skipLine) {
      if (matches.length >= scan.remaining) return { matches, stopped: true, after: true };
      const text = decodeUtf8(buf.subarray(ls, le));
      const ms = text.indexOf(needleText);
      matches.push({ line, ...matchWindow(text, ms, ms + needleText.length, scan.maxLineBytes) });
      if (matches.length >= scan.remaining) return { matches, stopped: true, after: le + 1 < end };
    }
    i = le + 1;
  }
  return { matches, stopped: false, after: false };
}

/**
 * Searches a byte source line by line. A case-sensitive literal is a byte search; a
 * regular expression (or a case-insensitive literal) runs on the native engine in a
 * worker thread within a per-block budget, and on the linear-time RE2 engine in-process
 * when there are no workers, when the pattern has no native equivalent, or from the
 * block where the native engine ran out of budget on. Counting newlines teaches `index`.
 */
export async function grepSource(source: SpillByteSource, index: LineIndex, run: GrepRun): Promise<GrepResult> {
  const { settings, compiled, now, pattern } = run;
  const { maxMatches, maxLineBytes, timeoutMs, signal } = settings;
  const size = source.size;
  const deadline = now() + timeoutMs;
  const checkTime = (): void => {
    throwIfAborted(signal, 'The grep');
    if (now() > deadline) throw timeoutError(timeoutMs);
  };

  const bytesMode = settings.literal && !settings.ignoreCase && NodeBufferCtor !== undefined;
  // Stored text holds no newline inside a line: a literal with one never matches.
  const impossible = settings.literal && pattern.includes('\n');
  const needle = bytesMode ? NodeBufferCtor.from(pattern) : undefined;
  const lease: WorkerLease | undefined = !bytesMode && compiled.native !== undefined && run.pool.available ? run.pool.lease() : undefined;

  const re2 = compiled.re2;
  const linearFirst: FirstMatch =
    settings.literal && !settings.ignoreCase
      ? (text) => {
          const at = text.indexOf(pattern);
          return at === -1 ? undefined : [at, at + pattern.length];
        }
      : (text) => {
          const m = re2.matcher(text);
          return m.find() ? [m.start(), m.end()] : undefined;
        };

  const found: GrepMatch[] = [];
  let skipLine = 0;
  let lastYield = now();
  let block = lease !== undefined || bytesMode ? BLOCK_BYTES : SLICE_BYTES;
  block = Math.max(block, source.preferredReadBytes ?? DEFAULT_PREFERRED_READ_BYTES);
  let buf = new Uint8Array(Math.max(16, Math.min(block, size)));
  let base = 0; // artifact offset of buf[0]
  let have = 0; // valid bytes in buf
  let lineNo = 1; // line number of buf[0]
  let nextCheckpoint = index.nextCheckpointLine;

  try {
    while (base + have < size || have > 0) {
      checkTime();
      if (base + have < size && have < buf.length) {
        const piece = await readExactly(source, base + have, Math.min(buf.length - have, size - base - have), signal);
        if (piece.length === 0) break;
        buf.set(piece, have);
        have += piece.length;
      }
      const eof = base + have >= size;
      let end: number;
      if (eof) {
        end = have;
      } else {
        const last = buf.lastIndexOf(NEWLINE, have - 1);
        if (last !== -1) {
          end = last + 1;
        } else if (have < buf.length) {
          continue; // read more before deciding
        } else if (buf.length < MAX_LINE_SPAN) {
          const bigger = new Uint8Array(Math.min(MAX_LINE_SPAN, buf.length * 2));
          bigger.set(buf.subarray(0, have));
          buf = bigger;
          continue;
        } else {
          // A line longer than MAX_LINE_SPAN: search it in pieces cut at a code-point start.
          end = have;
          while (end > 1 && isContinuation(buf[end])) end--;
        }
      }
      const region = buf.subarray(0, end);
      const scan: BlockScan = { firstLine: lineNo, remaining: maxMatches - found.length, maxLineBytes, skipLine };

      let result: BlockResult | undefined;
      if (impossible) {
        result = { matches: [], stopped: false, after: false };
      } else if (needle !== undefined) {
        result = scanLiteralBytes(asBuffer(region) ?? (region), end, needle, pattern, scan);
      } else if (lease?.active === true && compiled.native !== undefined) {
        const copy = region.slice();
        const outcome = await lease.run(
          { ...scan, bytes: copy, line: compiled.native.line, block: compiled.native.block, flags: compiled.native.flags },
          Math.min(nativeBudgetMs(end), Math.max(1, deadline - now())),
          signal,
        ).catch((error: unknown) => {
          throwIfAborted(signal, 'The grep');
          throw new SpillError('SPILL_STORAGE_FAILED', `grep's regex worker failed: ${error instanceof Error ? error.message : String(error)}.`, { cause: error });
        });
        checkTime();
        // Out of budget: a backtracking blow-up. This block and the rest go to RE2.
        if (outcome.kind === 'done') result = outcome.result;
      }
      if (result === undefined) {
        if (now() - lastYield >= YIELD_EVERY_MS) {
          await yieldToEventLoop();
          lastYield = now();
          checkTime();
        }
        result = scanBlock(decodeUtf8(region), scan, linearFirst, undefined, checkTime);
      }

      for (const m of result.matches) found.push(m);
      if (result.matches.length > 0) skipLine = result.matches[result.matches.length - 1]?.line ?? skipLine;
      if (result.stopped) {
        return { matches: found, limitReached: maxMatches === 0 || result.after || base + end < size, totalBytes: size };
      }

      // Count the block's lines, teaching the index every checkpoint passed.
      for (let i = region.indexOf(NEWLINE); i !== -1; i = region.indexOf(NEWLINE, i + 1)) {
        lineNo++;
        if (lineNo === nextCheckpoint && base + i + 1 < size) {
          index.learn(lineNo, base + i + 1);
          nextCheckpoint = index.nextCheckpointLine;
        }
      }
      buf.copyWithin(0, end, have);
      base += end;
      have -= end;
      if (eof && have === 0) break;
    }
    return { matches: found, limitReached: false, totalBytes: size };
  } finally {
    lease?.release();
  }
}

