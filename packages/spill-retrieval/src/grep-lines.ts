import { SpillError, throwIfAborted } from '@spillway/core';
import type { GrepMatch, GrepResult } from '@spillway/core';
import { DEFAULT_PREFERRED_READ_BYTES, readExactly, readReusing } from './byte-source.js';
import type { SpillByteSource } from './byte-source.js';
import type { CompiledPattern } from './dialect.js';
import type { LineIndex } from './line-index.js';
import type { GrepSettings } from './options.js';
import { textFinder } from './find-folded.js';
import { foldCase } from './fold-case.js';
import { scanNeedle } from './scan-bytes.js';
import type { ByteBlock } from './scan-bytes.js';
import { literalNominate, scanBlock } from './scan-text.js';
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
/** After this many blocks ran out of native budget, the rest of a grep stays on RE2. */
const MAX_NATIVE_TIMEOUTS = 3;
/** Hand the event loop back at least this often (ms) while searching in-process. */
const YIELD_EVERY_MS = 20;

/**
 * The native engine's time for one block: a floor plus a generous rate (20 MB/s, where
 * everyday patterns run at hundreds). Past it, the block is taken for a backtracking
 * blow-up and handed to the linear engine.
 */
function nativeBudgetMs(bytes: number): number {
  return 25 + bytes / 20_000;
}

type BufferCtor = { from(data: ArrayBufferLike | string, offset?: number, length?: number): ByteBlock };
const NodeBufferCtor = (globalThis as { Buffer?: BufferCtor }).Buffer;

function asBuffer(bytes: Uint8Array): ByteBlock | undefined {
  return NodeBufferCtor?.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** A line longer than this (in bytes) is searched by the linear engine in a worker, where one can be had. */
const LONG_LINE_BYTES = 16 * 1024;

/** Whether `region` holds a line longer than {@link LONG_LINE_BYTES}. */
function hasLongLine(region: Uint8Array): boolean {
  if (region.length <= LONG_LINE_BYTES) return false;
  const view = asBuffer(region) ?? region;
  let previous = -1;
  for (let i = view.indexOf(NEWLINE); ; i = view.indexOf(NEWLINE, i + 1)) {
    const end = i === -1 ? view.length : i;
    if (end - previous - 1 > LONG_LINE_BYTES) return true;
    if (i === -1) return false;
    previous = i;
  }
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
  return new SpillError('SPILL_TIMEOUT', `grep gave up after ${ms} ms; use a simpler pattern, literal: true, or a larger timeoutMs.`);
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Searches a byte source line by line. A case-sensitive literal is a byte search; a
 * case-insensitive literal is a linear-time search of the case-folded needle in the
 * case-folded text, in-process; a regular expression runs on the native engine in a
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
  // A case-insensitive literal: fold both sides and search linearly (never a regex, whose
  // cost on a long repetitive needle grows with the needle times the text).
  const foldedMode = settings.literal && settings.ignoreCase;
  const foldedNeedle = foldedMode ? foldCase(pattern) : '';
  const findFolded = foldedMode ? textFinder(foldedNeedle) : undefined;
  // Stored text holds no newline inside a line: a literal with one never matches.
  const impossible = settings.literal && pattern.includes('\n');
  const needle = bytesMode ? NodeBufferCtor.from(pattern) : undefined;
  const leaseFirst = !bytesMode && !foldedMode && compiled.native !== undefined && run.pool.available;
  let lease: WorkerLease | undefined = leaseFirst ? run.pool.lease() : undefined;
  // A pool that had no worker to give (its reserve hook refused) is not asked again in this grep.
  let refused = leaseFirst && lease === undefined;

  const re2 = compiled.re2;
  const { re2Source, re2Flags } = compiled;
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

  // A case-sensitive literal, or text every match contains, lets RE2 skip to candidate lines.
  const skipTo = settings.literal && !settings.ignoreCase ? pattern : compiled.literal;
  const linearNominate = skipTo === undefined || skipTo === '' ? undefined : literalNominate(skipTo);
  const found: GrepMatch[] = [];
  let skipLine = 0;
  let lastYield = now();
  let block = lease !== undefined || bytesMode ? BLOCK_BYTES : SLICE_BYTES;
  block = Math.max(block, source.preferredReadBytes ?? DEFAULT_PREFERRED_READ_BYTES);
  // Blocks are read by position from a line start, each into one of two reusable
  // buffers (one is searched while the other fills): no bytes are carried or copied,
  // and no block-sized memory is allocated per block. A source without `readInto`
  // answers views of its own, searched in place, unless a worker needs shared memory.
  const shared = lease !== undefined && typeof SharedArrayBuffer === 'function';
  const copyForWorker = shared && source.readInto === undefined;
  const buffers: (Uint8Array | undefined)[] = [undefined, undefined];
  const bufferFor = (slot: number, length: number): Uint8Array => {
    let b = buffers[slot];
    if (b === undefined || b.length < length) {
      b = shared ? new Uint8Array(new SharedArrayBuffer(length)) : new Uint8Array(length);
      buffers[slot] = b;
    }
    return b;
  };
  const fetch = async (at: number, length: number, slot: number): Promise<Uint8Array> => {
    if (source.readInto !== undefined) return readReusing(source, at, length, bufferFor(slot, length), signal);
    const bytes = await readExactly(source, at, length, signal);
    if (!copyForWorker) return bytes;
    const into = bufferFor(slot, bytes.length);
    into.set(bytes);
    return into.subarray(0, bytes.length);
  };
  let want = Math.max(16, Math.min(block, size)); // bytes per read (grows for a long line)
  let slot = 0; // the buffer the block being searched lives in
  let base = 0; // artifact offset of the block (a line start, or a cut inside a long line)
  let lineNo = 1; // line number at base
  let nextCheckpoint = index.nextCheckpointLine;
  let timeouts = 0;
  const prefetch = (at: number, length: number, into: number): Promise<Uint8Array> => {
    const bytes = fetch(at, length, into);
    bytes.catch(() => undefined); // awaited (or dropped after the search stops) below
    return bytes;
  };
  let ahead: Promise<Uint8Array> | undefined = size > 0 ? prefetch(0, Math.min(want, size), slot) : undefined;
  let counted = false;
  // Counts a block's lines once, teaching the index every checkpoint passed.
  const countRegion = (region: Uint8Array): void => {
    if (counted) return;
    counted = true;
    const view = asBuffer(region) ?? region;
    for (let i = view.indexOf(NEWLINE); i !== -1; i = view.indexOf(NEWLINE, i + 1)) {
      lineNo++;
      if (lineNo === nextCheckpoint && base + i + 1 < size) {
        index.learn(lineNo, base + i + 1);
        nextCheckpoint = index.nextCheckpointLine;
      }
    }
  };

  try {
    while (base < size && ahead !== undefined) {
      checkTime();
      const bytes = await ahead;
      ahead = undefined;
      if (bytes.length === 0) break;
      const eof = base + bytes.length >= size;
      let end: number;
      if (eof) {
        end = bytes.length;
      } else {
        const last = bytes.lastIndexOf(NEWLINE);
        if (last !== -1) {
          end = last + 1;
        } else if (want < MAX_LINE_SPAN) {
          // No line ends in this block: read a bigger one from the same place.
          want = Math.min(MAX_LINE_SPAN, want * 2);
          ahead = prefetch(base, Math.min(want, size - base), slot);
          continue;
        } else {
          // A line longer than MAX_LINE_SPAN: search it in pieces cut before the block's
          // last code-point start, so that no character is split (the byte after the block
          // is not known here, so the last one is never taken as the cut).
          end = bytes.length - 1;
          while (end > 1 && isContinuation(bytes[end])) end--;
        }
      }
      const region = bytes.subarray(0, end);
      // Read the next block into the other buffer while this one is searched.
      const nextAt = base + end;
      if (nextAt < size) ahead = prefetch(nextAt, Math.min(want, size - nextAt), 1 - slot);
      const scan: BlockScan = { firstLine: lineNo, remaining: maxMatches - found.length, maxLineBytes, skipLine };

      let result: BlockResult | undefined;
      if (impossible) {
        result = { matches: [], stopped: false, after: false };
      } else if (needle !== undefined) {
        result = scanNeedle(asBuffer(region) ?? region, scan, needle, linearFirst, decodeUtf8);
      } else if (lease?.active === true && compiled.native !== undefined && timeouts < MAX_NATIVE_TIMEOUTS) {
        const running = lease.run(
          {
            ...scan,
            // Shared memory is only lent (the worker reads it in place); else a copy is transferred.
            bytes: shared ? region : region.slice(),
            line: compiled.native.line,
            block: compiled.native.block,
            flags: compiled.native.flags,
            ...(compiled.native.literal === undefined ? {} : { literal: compiled.native.literal }),
          },
          Math.min(nativeBudgetMs(end), Math.max(1, deadline - now())),
          signal,
        );
        countRegion(region); // while the worker searches
        const outcome = await running.catch((error: unknown) => {
          throwIfAborted(signal, 'The grep');
          throw new SpillError('SPILL_STORAGE_FAILED', `grep's regex worker failed: ${error instanceof Error ? error.message : String(error)}.`, { cause: error });
        });
        checkTime();
        if (outcome.kind === 'done') {
          result = outcome.result;
        } else {
          // Out of budget: a backtracking blow-up (or a starved thread). RE2 searches this
          // block; the next one goes back to a fresh worker, until too many ran over.
          timeouts++;
          lease = timeouts < MAX_NATIVE_TIMEOUTS ? (run.pool.lease() ?? lease) : lease;
        }
      }
      if (result === undefined && findFolded === undefined && !refused && run.pool.available && hasLongLine(region)) {
        // The linear engine, in a worker, for a block with a long line: in process it cannot
        // be stopped inside one line, and a large pattern over a long line costs their
        // product. The worker is given what is left of the deadline and terminated when it
        // runs out. (Short lines stay in process, where the deadline is checked between them.)
        if (lease?.active !== true) {
          const next = run.pool.lease();
          if (next === undefined) refused = true;
          else lease = next;
        }
        if (lease?.active === true) {
          const running = lease.run(
            {
              ...scan,
              bytes: shared ? region : region.slice(),
              line: '',
              block: '',
              flags: '',
              ...(compiled.literal === undefined ? {} : { literal: compiled.literal }),
              re2: { source: re2Source, flags: re2Flags },
            },
            Math.max(1, deadline - now()),
            signal,
          );
          countRegion(region);
          const outcome = await running.catch((error: unknown) => {
            throwIfAborted(signal, 'The grep');
            throw new SpillError('SPILL_STORAGE_FAILED', `grep's regex worker failed: ${error instanceof Error ? error.message : String(error)}.`, { cause: error });
          });
          checkTime(); // a worker stopped at the deadline ends the grep here
          // Any other 'timeout' means no worker could be had: search in process below.
          if (outcome.kind === 'done') result = outcome.result;
        }
      }
      if (result === undefined) {
        if (now() - lastYield >= YIELD_EVERY_MS) {
          await yieldToEventLoop();
          lastYield = now();
          checkTime();
        }
        const text = decodeUtf8(region);
        if (findFolded !== undefined) {
          // Folding keeps every index, so a hit in the folded block is at the same place in the block.
          const folded = foldCase(text);
          const first: FirstMatch = (line) => {
            const at = findFolded(foldCase(line), 0, checkTime);
            return at === -1 ? undefined : [at, at + foldedNeedle.length];
          };
          result = scanBlock(text, scan, first, (_block, from) => findFolded(folded, from, checkTime), checkTime);
        } else {
          result = scanBlock(text, scan, linearFirst, linearNominate, checkTime);
        }
      }

      for (const m of result.matches) found.push(m);
      if (result.matches.length > 0) skipLine = result.matches[result.matches.length - 1]?.line ?? skipLine;
      if (result.stopped) {
        return { matches: found, limitReached: maxMatches === 0 || result.after || base + end < size, totalBytes: size };
      }

      countRegion(region);
      counted = false;
      base += end;
      slot = 1 - slot;
    }
    return { matches: found, limitReached: false, totalBytes: size };
  } finally {
    lease?.release();
    // The source is closed after this returns: let a read still in flight finish first.
    await ahead?.catch(() => undefined);
  }
}

