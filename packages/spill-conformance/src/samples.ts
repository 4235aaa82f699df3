import { utf8ByteLength } from '@spillway/core';

/**
 * Contents every backend must store verbatim, with their UTF-8 sizes counted by hand
 * (not by the helper under test). Each entry is `[label, content, bytes]`.
 */
export const SAMPLE_CONTENTS: readonly (readonly [label: string, content: string, bytes: number])[] = [
  ['ASCII text', 'hello, world\nsecond line\n', 25],
  ['two- and three-byte characters', 'caf\u00e9 \u20ac \u0436 \u4e2d\u6587 \u2713\n', 24],
  ['emoji, including joined sequences', '\u{1F600} \u{1F469}\u200D\u{1F469}\u200D\u{1F467} \u{1F3F3}\uFE0F\u200D\u{1F308}', 38],
  ['lone surrogates, stored as U+FFFD (3 bytes each)', 'a\uD800b\uDFFFc\uDFFF\uD800 end\uD83D', 22],
  ['CRLF, a bare CR, a tab and NUL', 'a\r\nb\rc\t\u0000d\r\n', 11],
  ['text without a final newline', 'one\ntwo', 7],
  ['only newlines', '\n\n\n', 3],
  ['the empty string', '', 0],
  ['a byte-order mark and U+FFFD', '\uFEFFbom \uFFFD', 10],
  ['a 100000-byte line', 'x'.repeat(100_000), 100_000],
];

const LARGE_LINES = [
  'plain ASCII line with a few words in it',
  'caf\u00e9 \u20ac \u4e2d\u6587 \u0436 two- and three-byte characters',
  'emoji \u{1F600}\u{1F680}\u{1F469}\u200D\u{1F467} four-byte characters',
  'a line that ends with CRLF\r',
  '',
  'tab\tseparated\tvalues\t42',
];

/**
 * Deterministic mixed text (ASCII, multi-byte, emoji, CRLF and empty lines) of exactly
 * `bytes` UTF-8 bytes, for the large-content tests.
 */
export function makeLargeContent(bytes: number): string {
  const parts: string[] = [];
  let used = 0;
  for (let i = 0; ; i++) {
    const line = `${i} ${LARGE_LINES[i % LARGE_LINES.length] ?? ''}\n`;
    const size = utf8ByteLength(line);
    if (used + size > bytes) break;
    parts.push(line);
    used += size;
  }
  parts.push('x'.repeat(bytes - used));
  return parts.join('');
}
