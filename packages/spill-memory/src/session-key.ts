/**
 * A 64-bit FNV-1a hash over a lossless byte encoding of a session id, salted per backend
 * instance. It is a grouping key, not a secret: what makes a locator unguessable is its
 * random id. FNV runs synchronously everywhere (WebCrypto's digest is async and missing
 * outside secure browser contexts), and the salt keeps the key from revealing a short,
 * guessable session id to whoever sees a locator.
 */

const MASK16 = 0xffff;

/**
 * 64-bit FNV-1a state as four 16-bit limbs (least significant first), so that the
 * multiplication stays exact in doubles without BigInt.
 */
type Limbs = [number, number, number, number];

const OFFSET_BASIS: Limbs = [0x2325, 0x8422, 0x9ce4, 0xcbf2]; // 0xcbf29ce484222325

/** Multiplies by the FNV-64 prime 2^40 + 0x1b3, modulo 2^64. */
function multiplyByPrime(h: Limbs): void {
  const [h0, h1, h2, h3] = h;
  // h * 0x1b3
  const r0 = h0 * 0x1b3;
  let r1 = h1 * 0x1b3;
  let r2 = h2 * 0x1b3;
  let r3 = h3 * 0x1b3;
  // + (h << 40): bits 0..23 of h land on bits 40..63.
  r2 += (h0 & 0xff) << 8;
  r3 += (h0 >>> 8) | ((h1 & 0xff) << 8);
  // Carry.
  r1 += Math.floor(r0 / 0x10000);
  r2 += Math.floor(r1 / 0x10000);
  r3 += Math.floor(r2 / 0x10000);
  h[0] = r0 & MASK16;
  h[1] = r1 & MASK16;
  h[2] = r2 & MASK16;
  h[3] = r3 & MASK16;
}

function absorbByte(h: Limbs, byte: number): void {
  h[0] ^= byte;
  multiplyByPrime(h);
}

function hex16(n: number): string {
  return n.toString(16).padStart(4, '0');
}

/**
 * FNV-1a (64-bit) over `prefix` followed by every UTF-16 code unit of `text` as two bytes
 * (low, high). Two bytes per unit is lossless: `"s\uD800"` and `"s\uDFFF"` hash
 * different inputs, where UTF-8 would turn both into U+FFFD.
 *
 * @returns 16 lowercase hex digits.
 */
export function fnv1a64Utf16(text: string, prefix: Uint8Array = new Uint8Array(0)): string {
  const h: Limbs = [...OFFSET_BASIS];
  for (const byte of prefix) absorbByte(h, byte);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    absorbByte(h, unit & 0xff);
    absorbByte(h, unit >>> 8);
  }
  return hex16(h[3]) + hex16(h[2]) + hex16(h[1]) + hex16(h[0]);
}
