// ignoreBOM keeps a leading U+FEFF: it is content, and the default decoder would drop it.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Decodes UTF-8 bytes (stored text is always well-formed UTF-8). */
export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

const encoder = new TextEncoder();

/** Encodes a string as UTF-8. */
export function encodeUtf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** True when byte `b` continues a UTF-8 sequence rather than starting one. */
export function isContinuation(b: number | undefined): boolean {
  return ((b ?? 0) & 0xc0) === 0x80;
}
