type NativeByteLength = (text: string, encoding: 'utf8') => number;

// Node's Buffer.byteLength is native and 20-35x faster than the loop below; it counts a
// lone surrogate as 3 bytes too. Looked up on globalThis so that core imports nothing
// from Node and still runs in browsers and edge runtimes.
const nativeByteLength: NativeByteLength | undefined = (() => {
  const buffer = (globalThis as { Buffer?: { byteLength?: unknown } }).Buffer;
  const fn = buffer?.byteLength;
  return typeof fn === 'function' ? (fn.bind(buffer) as NativeByteLength) : undefined;
})();

/**
 * The exact number of bytes `text` occupies when encoded as UTF-8, as `TextEncoder`,
 * `Buffer.from(text)` and `fs.writeFile` encode it.
 *
 * A lone surrogate (half of a UTF-16 pair with no partner) cannot be encoded, so every
 * encoder writes U+FFFD REPLACEMENT CHARACTER instead: it counts as 3 bytes here, as it
 * will on disk. Uses Node's native `Buffer.byteLength` where it exists, and otherwise
 * {@link utf8ByteLengthPortable}.
 */
export function utf8ByteLength(text: string): number {
  return nativeByteLength === undefined ? utf8ByteLengthPortable(text) : nativeByteLength(text, 'utf8');
}

/**
 * {@link utf8ByteLength} in plain JavaScript, for runtimes without `Buffer`: one pass, no
 * allocation.
 */
export function utf8ByteLengthPortable(text: string): number {
  let bytes = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = i + 1 < n ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else {
        bytes += 3; // lone high surrogate: written as U+FFFD
      }
    } else bytes += 3; // BMP, including a lone low surrogate written as U+FFFD
  }
  return bytes;
}

/**
 * Bounds on the UTF-8 length of `text` known from its UTF-16 length alone, without a
 * scan: every code unit costs at least 1 byte and at most 3 (a pair costs 4 for 2 units).
 */
export function utf8ByteLengthBounds(text: string): { readonly min: number; readonly max: number } {
  return { min: text.length, max: text.length * 3 };
}

/**
 * The longest prefix of `text` that takes at most `maxBytes` UTF-8 bytes, never ending inside
 * a code point. A lone surrogate counts 3 bytes, as {@link utf8ByteLength} counts it (it is
 * written as U+FFFD). The one cut every package uses: file names, snippets, previews' lines.
 */
export function cutToUtf8Bytes(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  if (text.length * 3 <= maxBytes || utf8ByteLength(text) <= maxBytes) return text;
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
