import { SpillError, utf8ByteLength } from '@spillway/core';

const encoder = new TextEncoder();

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/**
 * Encodes a string that arrives in chunks to UTF-8, exactly as `TextEncoder` would encode
 * the concatenation. A chunk ending in a high surrogate keeps it back until the next chunk
 * shows whether a low surrogate completes the pair (then 4 bytes) or not (then U+FFFD,
 * 3 bytes). Memory is bounded by `maxBytes`: a chunk that would pass it throws
 * `SPILL_TOO_LARGE` before anything of it is encoded.
 */
export class Utf8Accumulator {
  #buffer = new Uint8Array(0);
  #used = 0;
  #pending = '';
  readonly #maxBytes: number;

  /** @param maxBytes - the most bytes the result may hold */
  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes encoded so far, not counting a held-back high surrogate. */
  get byteLength(): number {
    return this.#used;
  }

  /** Appends one chunk. */
  push(chunk: string): void {
    let text = this.#pending + chunk;
    this.#pending = '';
    if (text.length > 0 && isHighSurrogate(text.charCodeAt(text.length - 1))) {
      this.#pending = text.slice(-1);
      text = text.slice(0, -1);
    }
    if (text.length === 0) return;
    this.#append(text);
  }

  /** Flushes a held-back surrogate (as U+FFFD) and returns exactly the encoded bytes. */
  finish(): Uint8Array {
    if (this.#pending !== '') {
      const last = this.#pending;
      this.#pending = '';
      this.#append(last);
    }
    const out = this.#used === this.#buffer.length ? this.#buffer : this.#buffer.slice(0, this.#used);
    this.#buffer = new Uint8Array(0);
    this.#used = 0;
    return out;
  }

  #append(text: string): void {
    // A cheap bound first, so a huge chunk is refused without a scan.
    if (this.#used + text.length > this.#maxBytes) this.#tooLarge();
    const bytes = utf8ByteLength(text);
    const needed = this.#used + bytes;
    if (needed > this.#maxBytes) this.#tooLarge();
    if (needed > this.#buffer.length) {
      const grown = new Uint8Array(Math.min(this.#maxBytes, Math.max(needed, this.#buffer.length * 2, 1024)));
      grown.set(this.#buffer.subarray(0, this.#used));
      this.#buffer = grown;
    }
    const { written } = encoder.encodeInto(text, this.#buffer.subarray(this.#used));
    this.#used += written;
  }

  #tooLarge(): never {
    throw new SpillError(
      'SPILL_TOO_LARGE',
      `The streamed content passed the memory backend's maxBytes (${this.#maxBytes} bytes); raise maxBytes or use a disk backend such as @spillway/local.`,
    );
  }
}
