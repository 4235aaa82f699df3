import type { ReadResult } from '@spillway/core';
import type { Artifact } from './artifact-store.js';
import { lineStart } from './line-index.js';

const NEWLINE = 0x0a;
// ignoreBOM keeps a leading U+FEFF: it is content, and the default decoder would drop it.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Moves `cut` back to the start of the UTF-8 sequence it falls inside, if any. */
export function codePointBoundary(bytes: Uint8Array, cut: number, floor: number): number {
  let at = cut;
  while (at > floor && at < bytes.length && ((bytes[at] ?? 0) & 0xc0) === 0x80) at -= 1;
  return at;
}

/**
 * Reads lines `offset .. offset + limit - 1` from the stored bytes, cut to `maxBytes`,
 * with the semantics of `SpillReader.read`. Only the bytes shown are decoded.
 */
export function readLines(artifact: Artifact, offset: number, limit: number, maxBytes: number): ReadResult {
  const bytes = artifact.bytes;
  const total = bytes.length;
  const start = lineStart(artifact, bytes, offset);
  if (start === undefined) {
    return { text: '', startLine: offset, endLine: offset - 1, truncated: false, hasMore: false, totalBytes: total };
  }
  if (limit === 0) {
    return {
      text: '',
      startLine: offset,
      endLine: offset - 1,
      truncated: false,
      hasMore: true,
      nextOffset: offset,
      totalBytes: total,
    };
  }
  const budgetEnd = Math.min(total, start + maxBytes); // no byte at or past this is shown
  let pos = start;
  let lines = 0;
  while (lines < limit && pos < total) {
    // Look for the terminator only as far as the budget reaches: a 50 MB line is not scanned.
    const nl = pos < budgetEnd ? bytes.subarray(pos, budgetEnd).indexOf(NEWLINE) : -1;
    if (nl !== -1) {
      pos += nl + 1;
      lines += 1;
    } else if (total <= budgetEnd) {
      pos = total; // the unterminated final line fits whole
      lines += 1;
    } else {
      break; // this line does not fit
    }
  }
  if (lines === 0) {
    // Not even the first line fits: show as much of it as the cap allows.
    const cut = codePointBoundary(bytes, budgetEnd, start);
    if (cut === start) {
      // Not even one code point fits. No nextOffset: paging on with the same maxBytes
      // would read this line again forever; the caller has to ask for more bytes.
      return { text: '', startLine: offset, endLine: offset - 1, truncated: true, hasMore: true, totalBytes: total };
    }
    return {
      text: decoder.decode(bytes.subarray(start, cut)),
      startLine: offset,
      endLine: offset,
      truncated: true,
      hasMore: true,
      totalBytes: total,
    };
  }
  const endLine = offset + lines - 1;
  const text = decoder.decode(bytes.subarray(start, pos));
  if (pos < total) {
    return { text, startLine: offset, endLine, truncated: false, hasMore: true, nextOffset: endLine + 1, totalBytes: total };
  }
  return { text, startLine: offset, endLine, truncated: false, hasMore: false, totalBytes: total };
}
