import { throwIfAborted } from '@spillway/core';
import type { ReadResult } from '@spillway/core';
import { DEFAULT_PREFERRED_READ_BYTES, readExactly, readReusing } from './byte-source.js';
import type { SpillByteSource } from './byte-source.js';
import type { LineIndex } from './line-index.js';
import type { ReadSettings } from './options.js';
import { decodeUtf8 } from './utf8.js';

const NEWLINE = 0x0a;
/** The smallest read used to skip lines: large reads make skipping cheap on any source. */
const MIN_SCAN_BYTES = 1024 * 1024;

function scanBytesOf(source: SpillByteSource): number {
  return Math.max(MIN_SCAN_BYTES, source.preferredReadBytes ?? DEFAULT_PREFERRED_READ_BYTES);
}

/**
 * The byte offset where line `offset` starts, or `size` when the artifact has fewer
 * lines (a final `\n` starts no line). Starts from the nearest known point of `index`
 * and teaches it every checkpoint it passes.
 */
export async function findLineStart(source: SpillByteSource, index: LineIndex, offset: number, signal: AbortSignal | undefined): Promise<number> {
  const size = source.size;
  const from = index.nearest(offset);
  if (from.line === offset) return Math.min(from.byte, size);
  let line = from.line;
  let position = from.byte;
  let nextCheckpoint = index.nextCheckpointLine;
  // Small reads first (a nearby line costs little), growing to large ones for long skips.
  let step = source.preferredReadBytes ?? DEFAULT_PREFERRED_READ_BYTES;
  const maxStep = scanBytesOf(source);
  let scratch: Uint8Array | undefined;
  while (position < size) {
    throwIfAborted(signal, 'The read');
    const length = Math.min(step, size - position);
    // The buffer grows with the reads (a skip to a nearby line, the common case once the
    // line index is warm, never allocates the large scan size).
    if (source.readInto !== undefined && (scratch === undefined || scratch.length < length)) scratch = new Uint8Array(length);
    const bytes = await readReusing(source, position, length, scratch ?? new Uint8Array(0), signal);
    if (bytes.length === 0) break;
    let i = bytes.indexOf(NEWLINE);
    while (i !== -1) {
      line++;
      const start = position + i + 1;
      if (start >= size) return size;
      if (line === nextCheckpoint) {
        index.learn(line, start);
        nextCheckpoint = index.nextCheckpointLine;
      }
      if (line === offset) return start;
      i = bytes.indexOf(NEWLINE, i + 1);
    }
    position += bytes.length;
    step = Math.min(step * 2, maxStep);
  }
  return size;
}

/**
 * Gathers bytes from `start` until `limit` newlines are in hand, `want` bytes are, or the
 * artifact ends: a small page of a huge artifact reads little, whatever `maxBytes` is.
 */
async function gather(source: SpillByteSource, start: number, want: number, limit: number, signal: AbortSignal | undefined): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  let got = 0;
  let lines = 0;
  let step = source.preferredReadBytes ?? DEFAULT_PREFERRED_READ_BYTES;
  while (got < want) {
    throwIfAborted(signal, 'The read');
    const piece = await readExactly(source, start + got, Math.min(step, want - got), signal);
    if (piece.length === 0) break;
    pieces.push(piece);
    got += piece.length;
    for (let i = piece.indexOf(NEWLINE); i !== -1 && lines < limit; i = piece.indexOf(NEWLINE, i + 1)) lines++;
    if (lines >= limit) break;
    step = Math.min(step * 2, 16 * 1024 * 1024);
  }
  if (pieces.length === 1) return pieces[0] ?? new Uint8Array(0);
  const out = new Uint8Array(got);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/**
 * The caller's `offsetByte`, when the byte before it ends a line: where line `offset`
 * starts, with the bytes `readLines` would gather from there, read in one go from the byte
 * before (so that checking it costs no read of its own). `undefined` when there is no
 * usable position, and lines are counted instead.
 */
async function fromOffsetByte(source: SpillByteSource, settings: ReadSettings): Promise<{ start: number; window: Uint8Array } | undefined> {
  const { offset, offsetByte: at, limit, maxBytes, signal } = settings;
  // Line 1 needs no position; 0 starts no other line; the end and past it start none either
  // (after a final newline there is no further line to read, which counting answers itself).
  if (at === undefined || offset === 1 || at === 0 || at >= source.size) return undefined;
  const got = await gather(source, at - 1, Math.min(source.size - at, maxBytes + 4) + 1, limit + 1, signal);
  return got[0] === NEWLINE ? { start: at, window: got.subarray(1) } : undefined;
}

/**
 * Answers `read` with the semantics documented on core's `ReadOptions`/`ReadResult`:
 * whole lines while they fit in `maxBytes`; else the first line cut at a code-point
 * boundary; else (not even its first character fits) an empty, truncated answer with no
 * `nextOffset`.
 */
export async function readLines(source: SpillByteSource, index: LineIndex, settings: ReadSettings): Promise<ReadResult> {
  const { offset, limit, maxBytes, signal } = settings;
  const size = source.size;
  const hinted = await fromOffsetByte(source, settings);
  const start = hinted?.start ?? (await findLineStart(source, index, offset, signal));
  // A caller's offsetByte is vouched for by the caller alone: a wrong one answers only this
  // read, and never teaches the shared line index a position that later reads would trust.
  const teach = hinted === undefined;
  const empty = (hasMore: boolean): ReadResult => ({
    text: '',
    startLine: offset,
    endLine: offset - 1,
    truncated: false,
    hasMore,
    ...(hasMore ? { nextOffset: offset } : {}),
    totalBytes: size,
  });
  if (start >= size) return empty(false);
  if (limit === 0) return empty(true);

  // Up to maxBytes of text, plus a few bytes to see whether the cut splits a code point.
  const window = hinted?.window ?? (await gather(source, start, Math.min(size - start, maxBytes + 4), limit, signal));
  const got = window.length;
  const reachesEnd = start + got >= size;

  let lines = 0;
  let end = 0; // end of the last whole line that fits
  while (lines < limit) {
    const nl = window.indexOf(NEWLINE, end);
    if (nl === -1 || nl + 1 > maxBytes) break;
    end = nl + 1;
    lines++;
    if (teach && offset + lines === index.nextCheckpointLine) index.learn(offset + lines, start + end);
  }
  if (lines < limit && reachesEnd && end < got && got <= maxBytes && window.indexOf(NEWLINE, end) === -1) {
    end = got; // the final line has no terminator and fits whole
    lines++;
  }

  if (lines > 0) {
    const hasMore = start + end < size;
    if (hasMore && teach) index.hint = { line: offset + lines, byte: start + end };
    return {
      text: decodeUtf8(window.subarray(0, end)),
      startLine: offset,
      endLine: offset + lines - 1,
      truncated: false,
      hasMore,
      ...(hasMore ? { nextOffset: offset + lines } : {}),
      totalBytes: size,
    };
  }

  if (teach) index.hint = { line: offset, byte: start };
  // Not even one whole line fits: cut the first line at a code-point boundary.
  let cut = Math.min(maxBytes, got);
  while (cut > 0 && cut < got && ((window[cut] ?? 0) & 0xc0) === 0x80) cut--;
  if (cut === 0) {
    // Nothing fits: no nextOffset, because paging on with the same maxBytes never progresses.
    return { text: '', startLine: offset, endLine: offset - 1, truncated: true, hasMore: true, totalBytes: size };
  }
  return { text: decodeUtf8(window.subarray(0, cut)), startLine: offset, endLine: offset, truncated: true, hasMore: true, totalBytes: size };
}
