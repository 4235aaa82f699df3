import { assertSaveTextRequest, assertSaveTextStreamRequest, throwIfAborted, utf8ByteLength } from '@spillway/core';
import type { SaveBytesStreamSpill, SaveTextSpill, SaveTextStreamSpill, SpillCallOptions, SpillError, SpillRef } from '@spillway/core';
import { collectBytes } from './collect-bytes.js';
import { forEachChunk } from './content-stream.js';
import { callSignal } from './options.js';
import { Utf8Accumulator, tooLargeError } from './utf8-accumulator.js';

/** A save request without its content: who saves, from which tool, under what name. */
export type SaveEnvelope = Omit<SaveTextSpill, 'content'>;

/** What {@link bufferedSaves} needs from a backend. */
export interface BufferedSavesOptions {
  /** The most UTF-8 bytes one artifact may have; more is `SPILL_TOO_LARGE` before `put` is called. */
  readonly maxBytes: number;
  /** Makes the `SPILL_TOO_LARGE` error, in the backend's words (`actualBytes` when known). */
  readonly tooLarge?: (maxBytes: number, actualBytes?: number) => SpillError;
  /**
   * Stores the whole content as one new artifact and answers its ref: the backend's only
   * write. It is called once per save, after every check, with the exact UTF-8 bytes; what
   * it throws is the save's error (throw a `SpillError`, such as `SPILL_STORAGE_FAILED`
   * with the store's error as `cause`).
   */
  readonly put: (input: SaveEnvelope, bytes: Uint8Array, signal: AbortSignal | undefined) => SpillRef | Promise<SpillRef>;
}

/** The save methods of a backend, as {@link bufferedSaves} makes them. */
export interface BufferedSaves {
  /** `SpillBackend.saveText`. */
  saveText(input: SaveTextSpill, options?: SpillCallOptions): Promise<SpillRef>;
  /** `SpillBackend.saveTextStream`. */
  saveTextStream(input: SaveTextStreamSpill, options?: SpillCallOptions): Promise<SpillRef>;
  /** `SpillBackend.saveBytesStream`: the bytes exactly as given, invalid UTF-8 and NUL included. */
  saveBytesStream(input: SaveBytesStreamSpill, options?: SpillCallOptions): Promise<SpillRef>;
}

/**
 * `saveText`, `saveTextStream` and `saveBytesStream` for a backend that stores an artifact in one piece
 * (an in-memory map, a key-value store, a single PUT): every check of the contract is
 * done here (the request's shape, the signal, the size limit, a failing or non-string
 * stream, a surrogate pair split across chunks, bytes kept exactly), and the backend
 * writes only `put`.
 * Streams are gathered in memory up to `maxBytes`, so pick a limit that fits in memory.
 *
 * @example
 * const saves = bufferedSaves({
 *   maxBytes: 16 << 20,
 *   put: (input, bytes) => { const key = newKey(input); store.set(key, bytes); return refOf(key, bytes); },
 * });
 * const backend = { name: 'kv', ...saves };
 */
export function bufferedSaves(options: BufferedSavesOptions): BufferedSaves {
  const { maxBytes, put } = options;
  const tooLarge = options.tooLarge ?? tooLargeError;
  const encoder = new TextEncoder();
  return {
    async saveText(input, saveOptions) {
      await Promise.resolve(); // a bad request rejects, never throws synchronously
      assertSaveTextRequest(input);
      const signal = callSignal(saveOptions, 'save');
      throwIfAborted(signal, 'The save');
      const { content } = input;
      if (content.length > maxBytes) throw tooLarge(maxBytes); // every code unit is at least a byte
      const size = utf8ByteLength(content);
      if (size > maxBytes) throw tooLarge(maxBytes, size);
      return put(input, encoder.encode(content), signal);
    },

    async saveTextStream(input, saveOptions) {
      await Promise.resolve();
      assertSaveTextStreamRequest(input);
      const signal = callSignal(saveOptions, 'save');
      throwIfAborted(signal, 'The save');
      const accumulator = new Utf8Accumulator(maxBytes, (max) => tooLarge(max));
      await forEachChunk(input.content, signal, (chunk) => {
        accumulator.push(chunk);
      });
      const bytes = accumulator.finish();
      throwIfAborted(signal, 'The save'); // the last moment a cancel can still publish nothing
      return put(input, bytes, signal);
    },

    async saveBytesStream(input, saveOptions) {
      await Promise.resolve();
      const signal = callSignal(saveOptions, 'save');
      return put(input, await collectBytes(input, signal, maxBytes, (size) => tooLarge(maxBytes, size)), signal);
    },
  };
}
