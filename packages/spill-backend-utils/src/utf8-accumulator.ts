import { SpillError, utf8ByteLength } from '@spillway/core';
import { Utf8ChunkEncoder } from './utf8-chunk-encoder.js';

const encoder = new TextEncoder();

/** Size of the buffers encoded chunks are packed into. */
const SEGMENT_BYTES = 1 << 20;

/**
 * Encodes a string that arrives in chunks to UTF-8 in memory, exactly as `TextEncoder`
 * would encode the concatenation (a pair split across chunks is carried over by
 * {@link Utf8ChunkEncoder}). Memory is bounded by `maxBytes`: a chunk that would pass it
 * throws `SPILL_TOO_LARGE` (from `tooLarge`, when given) before anything of it is encoded. Bytes are packed into 1 MiB
 * segments, joined once at the end, so the peak is about twice the content, whatever the
 * chunk sizes.
 */
export class Utf8Accumulator {
  readonly #segments: Uint8Array[] = [];
  #current = new Uint8Array(0);
  #currentUsed = 0;
  #total = 0;
  readonly #chunks = new Utf8ChunkEncoder();
  readonly #maxBytes: number;
  readonly #tooLargeError: ((maxBytes: number) => SpillError) | undefined;

  /**
   * @param maxBytes - the most bytes the result may hold
   * @param tooLarge - makes the error for content past `maxBytes` (a backend's own wording)
   */
  constructor(maxBytes: number, tooLarge?: (maxBytes: number) => SpillError) {
    this.#maxBytes = maxBytes;
    this.#tooLargeError = tooLarge;
  }

  /** Bytes encoded so far, not counting a held-back high surrogate. */
  get byteLength(): number {
    return this.#total;
  }

  /** Appends one chunk. */
  push(chunk: string): void {
    const text = this.#chunks.take(chunk);
    if (text.length === 0) return;
    this.#append(text);
  }

  /** Flushes a held-back surrogate (as U+FFFD) and returns exactly the encoded bytes. */
  finish(): Uint8Array {
    const last = this.#chunks.rest();
    if (last !== '') this.#append(last);
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
    throw this.#tooLargeError?.(this.#maxBytes) ?? tooLargeError(this.#maxBytes);
  }
}

/** The default `SPILL_TOO_LARGE` error for content past a backend's limit of `maxBytes`. */
export function tooLargeError(maxBytes: number, actualBytes?: number): SpillError {
  const size = actualBytes === undefined ? 'more than' : `${String(actualBytes)} bytes, more than`;
  return new SpillError('SPILL_TOO_LARGE', `The content is ${size} ${String(maxBytes)} bytes, the most this backend stores; raise its limit or use a larger store.`);
}
