/**
 * Random ids from `crypto.getRandomValues`, the CSPRNG available in Node, browsers and
 * edge runtimes. Each call into it costs microseconds in Node, so bytes are drawn in
 * blocks and handed out in order; no byte is ever handed out twice.
 */
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let next = POOL_BYTES;

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** Fresh random bytes (at most {@link POOL_BYTES} per call). */
export function randomBytes(byteCount: number): Uint8Array {
  if (next + byteCount > POOL_BYTES) {
    crypto.getRandomValues(pool);
    next = 0;
  }
  const out = pool.slice(next, next + byteCount);
  pool.fill(0, next, next + byteCount); // a handed-out byte does not linger in the pool
  next += byteCount;
  return out;
}

/** `byteCount` fresh random bytes as lowercase hex. */
export function randomHex(byteCount: number): string {
  // join() builds one flat string; `+=` would keep a rope of byteCount pieces alive.
  return Array.from(randomBytes(byteCount), (b) => HEX[b] ?? '').join('');
}
