/** UTF-8 helpers for cutting text to a byte budget without splitting a character. */
import { cutToUtf8Bytes } from '@spillway/core';

/** The UTF-8 length of a string. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * A piece of a long line, at most `maxBytes`, that starts a little before `at` (a UTF-16
 * index) so that what was found there shows with some context.
 */
export function windowAround(text: string, at: number, maxBytes: number): string {
  let start = Math.max(0, at - Math.floor(maxBytes / 4));
  // Never start on the second half of a surrogate pair.
  if (start > 0 && /[\uDC00-\uDFFF]/.test(text[start] ?? '')) start -= 1;
  return cutToUtf8Bytes(text.slice(start), maxBytes);
}

/**
 * The lines of a `read` answer's text: split at `\n`, without the empty piece after a
 * final terminator.
 */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines;
}
