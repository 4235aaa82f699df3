/**
 * A fast byte-string search over a block. Node's `Buffer.indexOf` runs a needle of fewer
 * than 8 bytes as `memchr` on its first byte, and a longer one by Boyer-Moore-Horspool,
 * which reads most of the block. When the needle holds a byte that the block rarely has,
 * searching for the few bytes from there on skips from one of its occurrences to the
 * next, often ten times faster; each hit is then checked against the whole needle.
 */
import type { ByteBlock } from './scan-bytes.js';

/** Finds the first occurrence of the needle at or after `from` in `buf`, or -1. */
export type FindNeedle = (buf: ByteBlock, from: number) => number;

/** The longest window searched by `memchr` on its first byte (Node's cut-over to Boyer-Moore). */
const WINDOW_BYTES = 7;
/** Bytes at the start of a block whose frequencies choose the window. */
const SAMPLE_BYTES = 16 * 1024;

function equalAt(buf: Uint8Array, at: number, needle: Uint8Array): boolean {
  for (let j = 0; j < needle.length; j++) if (buf[at + j] !== needle[j]) return false;
  return true;
}

/**
 * A search for `needle` (a Node `Buffer`) in `block`, the same answers as
 * `block.indexOf(needle, from)`, through a window that starts at the needle's byte rarest
 * in the first bytes of `block`. When the window turns out to be common in the rest of
 * the block (more false hits than a Boyer-Moore pass costs), it searches for the whole
 * needle instead.
 */
export function needleFinder(needle: ByteBlock, block: Uint8Array): FindNeedle {
  const whole: FindNeedle = (buf, from) => buf.indexOf(needle, from);
  const len = needle.length;
  if (len < 2) return whole;
  const counts = new Uint32Array(256);
  const sample = Math.min(block.length, SAMPLE_BYTES);
  for (let i = 0; i < sample; i++) counts[block[i] ?? 0] = (counts[block[i] ?? 0] ?? 0) + 1;
  let k = 0;
  for (let j = 1; j < len; j++) if ((counts[needle[j] ?? 0] ?? 0) < (counts[needle[k] ?? 0] ?? 0)) k = j;
  if (k === 0 && len <= WINDOW_BYTES) return whole;
  const window = needle.subarray(k, Math.min(len, k + WINDOW_BYTES));
  // A false hit costs a call from JavaScript; past this many, a Boyer-Moore pass is cheaper.
  let misses = 64 + (block.length >> 10);
  return (buf, from) => {
    if (misses < 0) return buf.indexOf(needle, from);
    for (let w = from + k; ; ) {
      const p = buf.indexOf(window, w);
      if (p === -1) return -1;
      const at = p - k;
      if (at + len > buf.length) return -1;
      if (equalAt(buf, at, needle)) return at;
      if (--misses < 0) return buf.indexOf(needle, at + 1);
      w = p + 1;
    }
  };
}
