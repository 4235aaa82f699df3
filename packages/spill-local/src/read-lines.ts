import { DEFAULT_READ_LIMIT, DEFAULT_READ_MAX_BYTES, SpillError, throwIfAborted } from '@spillway/core';
import type { ReadOptions, ReadResult } from '@spillway/core';

/** Reads `length` bytes at `position` into `buffer` at `offset`; 0 means end of file. */
export type PositionedRead = (buffer: Uint8Array, offset: number, length: number, position: number) => Promise<number>;

/** Size of the scan buffer used to skip to the first requested line. */
export const SCAN_BUFFER_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

function invalidOption(name: string, rule: string, value: unknown): SpillError {
  return new SpillError('SPILL_INVALID_INPUT', `read: ${name} must be ${rule}; got ${String(value)}.`);
}

/** The read options with defaults applied, or SPILL_INVALID_INPUT. */
export function readOptions(options: ReadOptions | undefined): { offset: number; limit: number; maxBytes: number } {
  const offset = options?.offset ?? 1;
  const limit = options?.limit ?? DEFAULT_READ_LIMIT;
  const maxBytes = options?.maxBytes ?? DEFAULT_READ_MAX_BYTES;
  if (!Number.isSafeInteger(offset) || offset < 1) throw invalidOption('offset', 'a whole number of at least 1 (lines count from 1)', offset);
  if (!Number.isSafeInteger(limit) || limit < 0) throw invalidOption('limit', 'a whole number of at least 0', limit);
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw invalidOption('maxBytes', 'a whole number of at least 0', maxBytes);
  return { offset, limit, maxBytes };
}

/** Fills `buffer[0..length)` from `position`, looping over short reads; resolves bytes read. */
async function readFully(read: PositionedRead, buffer: Uint8Array, length: number, position: number): Promise<number> {
  let done = 0;
  while (done < length) {
    const n = await read(buffer, done, length - done, position + done);
    if (n <= 0) break;
    done += n;
  }
  return done;
}

/**
 * The byte position where line `offset` starts, or `size` when the file has fewer lines.
 * Reads through one reusable buffer, so memory is constant however far the line is.
 */
export async function findLineStart(read: PositionedRead, size: number, offset: number, signal?: AbortSignal): Promise<number> {
  if (offset <= 1) return 0;
  let line = 1;
  const buf = Buffer.allocUnsafe(Math.min(SCAN_BUFFER_BYTES, Math.max(size, 1)));
  let position = 0;
  while (position < size) {
    throwIfAborted(signal, 'The read');
    const n = await readFully(read, buf, Math.min(buf.length, size - position), position);
    if (n === 0) break;
    let i = 0;
    for (;;) {
      const nl = buf.indexOf(NEWLINE, i);
      if (nl === -1 || nl >= n) break;
      line++;
      if (line === offset) return position + nl + 1;
      i = nl + 1;
    }
    position += n;
  }
  return size;
}

/**
 * Answers a read from bytes starting at `start`, the first byte of line `offset`, with the
 * exact semantics documented on core's `ReadResult`: whole lines when at least one fits in
 * `maxBytes`, else the first line cut at a code-point boundary, else (not even its first
 * character fits) an empty `text` with `truncated: true` and no `nextOffset`.
 */
export async function readFrom(
  read: PositionedRead,
  size: number,
  start: number,
  opts: { offset: number; limit: number; maxBytes: number },
): Promise<ReadResult> {
  const { offset, limit, maxBytes } = opts;
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
  const windowBytes = Math.min(size - start, maxBytes + 4);
  const buffer = Buffer.allocUnsafe(windowBytes);
  const got = await readFully(read, buffer, windowBytes, start);
  const window = buffer.subarray(0, got);
  const reachesEnd = start + got >= size;

  let lines = 0;
  let end = 0; // end of the last whole line that fits
  while (lines < limit) {
    const nl = window.indexOf(NEWLINE, end);
    if (nl === -1 || nl + 1 > maxBytes) break;
    end = nl + 1;
    lines++;
  }
  if (lines < limit && reachesEnd && end < got && got <= maxBytes && window.indexOf(NEWLINE, end) === -1) {
    // The final line has no terminator and fits whole.
    end = got;
    lines++;
  }

  if (lines > 0) {
    const hasMore = start + end < size;
    return {
      text: window.toString('utf8', 0, end),
      startLine: offset,
      endLine: offset + lines - 1,
      truncated: false,
      hasMore,
      ...(hasMore ? { nextOffset: offset + lines } : {}),
      totalBytes: size,
    };
  }

  // Not even one whole line fits: cut the first line at a code-point boundary.
  let cut = Math.min(maxBytes, got);
  while (cut > 0 && cut < got && ((window[cut] ?? 0) & 0xc0) === 0x80) cut--;
  if (cut === 0) {
    // Nothing fits. Core's contract: the (empty) first line counts as cut short, and no
    // nextOffset, because paging on with the same maxBytes could never make progress.
    return { text: '', startLine: offset, endLine: offset - 1, truncated: true, hasMore: true, totalBytes: size };
  }
  return {
    text: window.toString('utf8', 0, cut),
    startLine: offset,
    endLine: offset,
    truncated: true,
    hasMore: true,
    totalBytes: size,
  };
}
