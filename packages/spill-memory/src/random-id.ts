/** Hex digits of `byteCount` bytes from `crypto.getRandomValues` (a CSPRNG everywhere). */
export function randomHex(byteCount: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(byteCount));
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/** Random bytes from `crypto.getRandomValues`. */
export function randomBytes(byteCount: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(byteCount));
}
