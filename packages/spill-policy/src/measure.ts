import { utf8ByteLength } from '@spillway/core';

/** Bytes between two joined text blocks (`"\n"`). */
export const BLOCK_SEPARATOR = '\n';

/**
 * Tells whether the UTF-8 size of `texts.join("\n")` is over `cap`, scanning as little as
 * possible. Every UTF-16 code unit costs 1 to 3 bytes, so the lengths alone settle most
 * cases; a block is scanned only while those bounds straddle the cap, and the scan stops
 * as soon as the answer is known.
 */
export function joinedTextExceeds(texts: readonly string[], cap: number, measure = utf8ByteLength): boolean {
  let units = 0;
  for (const text of texts) units += text.length;
  const separators = texts.length > 0 ? texts.length - 1 : 0;
  let min = units + separators;
  let max = units * 3 + separators;
  for (const text of texts) {
    if (max <= cap) return false;
    if (min > cap) return true;
    const exact = measure(text);
    min += exact - text.length;
    max += exact - text.length * 3;
  }
  return min > cap;
}
