import { SpillError, utf8ByteLength } from '@spillway/core';

const encoder = new TextEncoder();

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** Size of the buffers encoded chunks are packed into. */
const SEGMENT_BYTES = 1 << 20;

/**
 * Encodes a string that arrives in chunks to UTF-8, exactly as `TextEncoder` would encode
 * the concatenation. A chunk ending in a high surrogate keeps it back until the next chunk
 * shows whether a low surrogate completes the pair (then 4 bytes) or not (then U+FFFD,
 * 3 bytes). Memory is bounded by `maxBytes`: a chunk that would pass it throws
 * `SPILL_TOO_LARGE` before anything of it is encoded. Bytes are packed into 1 MiB
 * segments, joined once at the end, so the peak is about twice the content, whatever the
 * chunk sizes.
 */
export class Utf8Accumulator {
  readonly #segments: Uint8Array[] = [];
  #current = new Uint8Array(0);
  #currentUsed = 0;
  #total = 0;
  #pending = '';
  readonly #maxBytes: number;

  /** @param maxBytes - the most bytes the result may hold */
  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes encoded so far, not counting a held-back high surrogate. */
  get byteLength(): number {
    return this.#total;
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
    this.#seal();
    const segments = this.#segments.splice(0);
    const [only] = segments;
    if (segments.length === 1 && only !== undefined) return only;
    const out = new Uint8Array(this.#total);
    let at = 0;
    for (const segment of segments) {
      out.set(segment, at);
      at += segment.length;
    }
    this.#total = 0;
    return out;
  }

  #append(text: string): void {
    // A cheap bound first, so a huge chunk is refused without a scan.
    if (this.#total + text.length > this.#maxBytes) this.#tooLarge();
    const bytes = utf8ByteLength(text);
    if (this.#total + bytes > this.#maxBytes) this.#tooLarge();
    if (this.#current.length - this.#currentUsed < bytes) {
      this.#seal();
      this.#current = new Uint8Array(Math.max(bytes, Math.min(SEGMENT_BYTES, this.#maxBytes - this.#total)));
    }
    const { written } = encoder.encodeInto(text, this.#current.subarray(this.#currentUsed));
    this.#currentUsed += written;
    this.#total += written;
  }

  /** Keeps the used part of the current segment (trimmed) and starts afresh. */
  #seal(): void {
    if (this.#currentUsed > 0) {
      const used = this.#current.subarray(0, this.#currentUsed);
      this.#segments.push(this.#currentUsed === this.#current.length ? this.#current : used.slice());
    }
    this.#current = new Uint8Array(0);
    this.#currentUsed = 0;
  }

  #tooLarge(): never {
    throw new SpillError(
      'SPILL_TOO_LARGE',
      `The streamed content passed the memory backend's maxBytes (${this.#maxBytes} bytes); raise maxBytes or use a disk backend such as @spillway/local.`,
    );
  }
}
