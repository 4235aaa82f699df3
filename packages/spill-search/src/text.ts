/** UTF-8 helpers for cutting text to a byte budget without splitting a character. */

/** The UTF-8 length of a string. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * The longest prefix of `text` that fits in `maxBytes` UTF-8 bytes, never ending inside a
 * code point.
 */
export function cutToBytes(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  if (text.length * 3 <= maxBytes || byteLength(text) <= maxBytes) return text;
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.codePointAt(i) ?? 0;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) break;
    bytes += size;
    i += code >= 0x10000 ? 2 : 1;
  }
  return text.slice(0, i);
}

/**
 * A piece of a long line, at most `maxBytes`, that starts a little before `at` (a UTF-16
 * index) so that what was found there shows with some context.
 */
export function windowAround(text: string, at: number, maxBytes: number): string {
  let start = Math.max(0, at - Math.floor(maxBytes / 4));
  // Never start on the second half of a surrogate pair.
  if (start > 0 && /[\uDC00-\uDFFF]/.test(text[start] ?? '')) start -= 1;
  return cutToBytes(text.slice(start), maxBytes);
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
