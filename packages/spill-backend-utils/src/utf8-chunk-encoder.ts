const encoder = new TextEncoder();

/** Whether a UTF-16 code unit is the first half of a surrogate pair. */
export function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/**
 * Turns text that arrives in chunks into pieces that encode to UTF-8 exactly as the
 * concatenation would. A chunk that ends in a high surrogate keeps it back until the next
 * chunk shows whether a low surrogate completes the pair (then one 4-byte character) or
 * not (then U+FFFD, as every encoder writes a lone surrogate). A backend writes
 * `take(chunk)` for every chunk and `rest()` at the end, in its own buffers;
 * {@link encode} and {@link end} do the encoding too.
 *
 * @example
 * const chunks = new Utf8ChunkEncoder();
 * chunks.take('a\uD83D'); // 'a' (the high surrogate waits)
 * chunks.take('\uDE00b'); // '😀b'
 * chunks.rest();          // ''
 */
export class Utf8ChunkEncoder {
  #pending = '';

  /** Whether a high surrogate is held back. */
  get holding(): boolean {
    return this.#pending !== '';
  }

  /** The part of `chunk` (after what was held back) that is safe to encode now. */
  take(chunk: string): string {
    let text = this.#pending === '' ? chunk : this.#pending + chunk;
    this.#pending = '';
    if (text.length > 0 && isHighSurrogate(text.charCodeAt(text.length - 1))) {
      this.#pending = text.slice(-1);
      text = text.slice(0, -1);
    }
    return text;
  }

  /** What is held back at the end of the stream (`''` or a lone high surrogate, which encodes as U+FFFD). */
  rest(): string {
    const last = this.#pending;
    this.#pending = '';
    return last;
  }

  /** {@link take}, encoded. */
  encode(chunk: string): Uint8Array {
    return encoder.encode(this.take(chunk));
  }

  /** {@link rest}, encoded. */
  end(): Uint8Array {
    return encoder.encode(this.rest());
  }
}
