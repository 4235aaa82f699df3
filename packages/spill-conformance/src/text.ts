import { utf8ByteLength } from '@spillway/core';

const REPLACEMENT = '\uFFFD';

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * The text a backend holds after storing `content` as UTF-8: every lone surrogate
 * becomes U+FFFD, exactly as `TextEncoder` and `Buffer.from` encode it. Well-formed text
 * comes back unchanged. (`String.prototype.toWellFormed` does the same on newer runtimes.)
 */
export function toStoredText(content: string): string {
  let out = '';
  let runStart = 0;
  const n = content.length;
  for (let i = 0; i < n; i++) {
    const c = content.charCodeAt(i);
    if (isHigh(c) && i + 1 < n && isLow(content.charCodeAt(i + 1))) {
      i++;
      continue;
    }
    if (isHigh(c) || isLow(c)) {
      out += content.slice(runStart, i) + REPLACEMENT;
      runStart = i + 1;
    }
  }
  return runStart === 0 ? content : out + content.slice(runStart);
}

/** True when `text` has no lone surrogate, so it encodes to UTF-8 without loss. */
export function isWellFormed(text: string): boolean {
  return toStoredText(text) === text;
}

/**
 * True when a cut at UTF-16 index `index` of `text` does not split a surrogate pair.
 * The ends of the string are always boundaries.
 */
export function isCodePointBoundary(text: string, index: number): boolean {
  if (index <= 0 || index >= text.length) return true;
  return !(isHigh(text.charCodeAt(index - 1)) && isLow(text.charCodeAt(index)));
}

/**
 * The longest prefix of `text` that fits in `maxBytes` UTF-8 bytes without splitting a
 * code point. `text` is assumed well-formed (see {@link toStoredText}).
 */
export function cutToBytes(text: string, maxBytes: number): string {
  return text.slice(0, prefixEndForBytes(text, 0, maxBytes));
}

/**
 * The UTF-16 index where a slice of `text` starting at `start` must end to hold at most
 * `maxBytes` UTF-8 bytes, never splitting a code point.
 */
export function prefixEndForBytes(text: string, start: number, maxBytes: number): number {
  let used = 0;
  let i = start;
  while (i < text.length) {
    const width = codePointWidth(text, i);
    if (used + width.bytes > maxBytes) break;
    used += width.bytes;
    i += width.units;
  }
  return i;
}

/** The UTF-16 index where a slice ending at `end` must start to hold at most `maxBytes`. */
export function suffixStartForBytes(text: string, end: number, maxBytes: number): number {
  let used = 0;
  let i = end;
  while (i > 0) {
    const units = i >= 2 && isLow(text.charCodeAt(i - 1)) && isHigh(text.charCodeAt(i - 2)) ? 2 : 1;
    const bytes = utf8ByteLength(text.slice(i - units, i));
    if (used + bytes > maxBytes) break;
    used += bytes;
    i -= units;
  }
  return i;
}

function codePointWidth(text: string, index: number): { units: number; bytes: number } {
  const c = text.charCodeAt(index);
  if (isHigh(c) && index + 1 < text.length && isLow(text.charCodeAt(index + 1))) return { units: 2, bytes: 4 };
  if (c < 0x80) return { units: 1, bytes: 1 };
  if (c < 0x800) return { units: 1, bytes: 2 };
  return { units: 1, bytes: 3 };
}

/**
 * Where two strings first differ, for failure messages that stay short even when the
 * strings are megabytes long (a full diff of such strings would stall the reporter).
 */
export function describeTextDifference(actual: string, expected: string): string | undefined {
  if (actual === expected) return undefined;
  let i = 0;
  const n = Math.min(actual.length, expected.length);
  while (i < n && actual.charCodeAt(i) === expected.charCodeAt(i)) i++;
  const show = (s: string): string => JSON.stringify(s.slice(Math.max(0, i - 20), i + 20));
  return (
    `lengths ${actual.length} (actual) vs ${expected.length} (expected) UTF-16 units; ` +
    `first difference at index ${i}: actual ${show(actual)} vs expected ${show(expected)}`
  );
}

/** Like {@link describeTextDifference}, for byte arrays. */
export function describeBytesDifference(actual: Uint8Array, expected: Uint8Array): string | undefined {
  let i = 0;
  const n = Math.min(actual.length, expected.length);
  while (i < n && actual[i] === expected[i]) i++;
  if (i === n && actual.length === expected.length) return undefined;
  return `lengths ${actual.length} (actual) vs ${expected.length} (expected) bytes; first difference at byte ${i}`;
}
