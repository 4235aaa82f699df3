import { Utf8ChunkEncoder, isHighSurrogate } from '@spillway/backend-utils';
import { storageError } from './errors.js';
import type { FsOps } from './fs-ops.js';

/** Default size of the batching buffer: small chunks are gathered into writes this big. */
export const WRITE_BUFFER_BYTES = 1024 * 1024;

/**
 * Encodes text to UTF-8 into one reusable buffer and writes it to a descriptor with
 * positioned writes, looping until every byte is written (a write may be partial).
 *
 * Text can arrive in chunks: a surrogate pair split across two chunks is written as the
 * pair, and a lone surrogate anywhere (including a high one left at the very end) is
 * written as U+FFFD, exactly as encoding the concatenation would. Memory stays at one
 * buffer however large the text is, because big strings are encoded slice by slice.
 */
export class FileWriter {
  readonly #ops: FsOps;
  readonly #fd: number;
  readonly #buf: Buffer;
  #filled = 0;
  #position = 0;
  readonly #chunks = new Utf8ChunkEncoder();

  constructor(ops: FsOps, fd: number, bufferBytes = WRITE_BUFFER_BYTES) {
    this.#ops = ops;
    this.#fd = fd;
    this.#buf = Buffer.allocUnsafe(Math.max(bufferBytes, 16));
  }

  /** Adds one chunk of a stream; a trailing high surrogate waits for the next chunk. */
  async writeChunk(chunk: string): Promise<void> {
    await this.writeText(this.#chunks.take(chunk));
  }

  /** Adds a complete string (no carry between calls). */
  async writeText(text: string): Promise<void> {
    const capacity = this.#buf.length;
    // Each UTF-16 code unit needs at most 3 bytes, so this many always fit an empty buffer.
    const sliceUnits = Math.floor(capacity / 3);
    let start = 0;
    while (start < text.length) {
      let end = Math.min(text.length, start + sliceUnits);
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--; // keep a pair together
      const worst = (end - start) * 3;
      if (this.#filled + worst > capacity) await this.flush();
      const piece = start === 0 && end === text.length ? text : text.slice(start, end);
      this.#filled += this.#buf.write(piece, this.#filled, 'utf8');
      start = end;
    }
  }

  /** Writes whatever is buffered. */
  async flush(): Promise<void> {
    let offset = 0;
    while (offset < this.#filled) {
      const n = await this.#ops.write(this.#fd, this.#buf, offset, this.#filled - offset, this.#position);
      if (!Number.isInteger(n) || n <= 0) {
        throw storageError(Object.assign(new Error('write made no progress'), { code: 'EIO' }), 'writing the spill file');
      }
      offset += n;
      this.#position += n;
    }
    this.#filled = 0;
  }

  /** Writes a carried lone surrogate (as U+FFFD) and flushes. Resolves the total bytes. */
  async end(): Promise<number> {
    const last = this.#chunks.rest();
    if (last !== '') await this.writeText(last);
    await this.flush();
    return this.#position;
  }
}
