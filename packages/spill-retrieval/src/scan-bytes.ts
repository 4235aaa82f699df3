/**
 * Grep over a block of whole lines held as UTF-8 bytes, shared by the main thread and
 * the regex worker. Decoding a whole block into one string costs more than searching it
 * (a string of megabytes is a fresh allocation each time), so these scans decode only
 * what they must: the lines a byte search nominates, or the block in small pieces.
 */
import { needleFinder } from './find-needle.js';
import { matchWindow, scanBlock } from './scan-text.js';
import type { BlockResult, BlockScan, FirstMatch, FoundLine, Nominate } from './scan-text.js';

const NEWLINE = 0x0a;

/**
 * What the scans use of a Node `Buffer` (a view of exactly the block), declared here so
 * that the package's types need no `@types/node`.
 */
export interface ByteBlock extends Uint8Array {
  indexOf(value: Uint8Array | number, byteOffset?: number): number;
  lastIndexOf(value: number, byteOffset?: number): number;
}

/** Decodes a piece of a block (whole code points) to a string. */
export type DecodeBytes = (bytes: Uint8Array) => string;

/**
 * Bytes decoded per piece by {@link scanPieces}: small enough that each piece's string
 * lives in the young generation (reused memory) rather than in a fresh large allocation.
 */
export const PIECE_BYTES = 64 * 1024;

function countNewlines(buf: ByteBlock, from: number, to: number): number {
  let n = 0;
  for (let k = buf.indexOf(NEWLINE, from); k !== -1 && k < to; k = buf.indexOf(NEWLINE, k + 1)) n++;
  return n;
}

/**
 * Collects the matching lines of `buf` that contain `needle` (UTF-8 bytes in a Node
 * `Buffer`, no `\n`): a byte search finds each candidate, and only its line is decoded and given to `first`.
 * The answer is the one {@link scanBlock} gives on the decoded block with a nominator
 * that finds `needle`.
 */
export function scanNeedle(buf: ByteBlock, scan: BlockScan, needle: ByteBlock, first: FirstMatch, decode: DecodeBytes): BlockResult {
  const matches: FoundLine[] = [];
  const end = buf.length;
  const find = needleFinder(needle, buf);
  let i = 0;
  let counted = 0;
  let line = scan.firstLine;
  while (i < end) {
    const m = find(buf, i);
    if (m === -1 || m + needle.length > end) break;
    let ls = m === 0 ? 0 : buf.lastIndexOf(NEWLINE, m - 1) + 1;
    if (ls < i) ls = i;
    let le = buf.indexOf(NEWLINE, m);
    if (le === -1) le = end;
    const text = decode(buf.subarray(ls, le));
    const hit = first(text);
    if (hit !== undefined) {
      line += countNewlines(buf, counted, ls);
      counted = ls;
      if (line !== scan.skipLine) {
        if (matches.length >= scan.remaining) return { matches, stopped: true, after: true };
        matches.push({ line, ...matchWindow(text, hit[0], hit[1], scan.maxLineBytes) });
        if (matches.length >= scan.remaining) return { matches, stopped: true, after: le + 1 < end };
      }
    }
    i = le + 1;
  }
  return { matches, stopped: false, after: false };
}

/**
 * {@link scanBlock} over `buf` decoded in pieces of about `pieceBytes` (default
 * {@link PIECE_BYTES}) of whole lines (a longer line is one piece), with the same
 * answer: every line, and whatever a block search can see of it, lies within one piece.
 * `scan.skipLine` is a line already reported, so at most the block's first line.
 */
export function scanPieces(
  buf: ByteBlock,
  scan: BlockScan,
  first: FirstMatch,
  nominate: Nominate | undefined,
  decode: DecodeBytes,
  pieceBytes: number = PIECE_BYTES,
): BlockResult {
  const matches: FoundLine[] = [];
  const end = buf.length;
  let at = 0;
  let counted = 0;
  let line = scan.firstLine;
  while (at < end) {
    let stop = end;
    if (end - at > pieceBytes) {
      const nl = buf.lastIndexOf(NEWLINE, at + pieceBytes - 1);
      if (nl >= at) {
        stop = nl + 1;
      } else {
        const next = buf.indexOf(NEWLINE, at + pieceBytes);
        if (next !== -1) stop = next + 1;
      }
    }
    // Numbered from 1 within the piece; only the block's first line can be `skipLine`.
    const piece = scanBlock(
      decode(buf.subarray(at, stop)),
      { firstLine: 1, remaining: scan.remaining - matches.length, maxLineBytes: scan.maxLineBytes, skipLine: at === 0 && scan.skipLine === scan.firstLine ? 1 : 0 },
      first,
      nominate,
    );
    if (piece.matches.length > 0) {
      line += countNewlines(buf, counted, at);
      counted = at;
      for (const m of piece.matches) matches.push({ ...m, line: line + m.line - 1 });
    }
    if (piece.stopped) return { matches, stopped: true, after: piece.after || stop < end };
    at = stop;
  }
  return { matches, stopped: false, after: false };
}
