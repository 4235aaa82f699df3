/**
 * The file sink: byte-exact, zero-copy storage of command output through a file
 * descriptor. It is not part of the portable {@link SpillBackend} contract: a descriptor
 * is a POSIX notion, and only a backend whose artifacts are files on this host can offer
 * one (`@spillway/local` does; memory and object-store backends cannot). A backend offers
 * it as the well-known member `fileSink` ({@link NodeSpillBackend}); a caller asks for it
 * with {@link fileSinkOf} and otherwise stores through `saveBytesStream` or
 * `saveTextStream`. `@spillway/conformance/file-sink` holds the suite that proves a sink.
 *
 * Types and one lookup function only: this entry imports nothing, like the rest of core.
 *
 * @packageDocumentation
 */
import type { SaveTextSpill, SpillBackend, SpillCallOptions, SpillRef } from './backend.js';

/** A request to open a {@link SpillFileSink}: a save request without content. */
export type OpenFileSinkSpill = Omit<SaveTextSpill, 'content'>;

/**
 * One artifact being written as raw bytes through a descriptor: a private temporary file
 * that nobody else can see until {@link SpillFileSinkHandle.publish} (the catalog does not
 * list it, and no locator reads it). Always end it with {@link SpillFileSinkHandle.close},
 * published or not.
 */
export interface SpillFileSinkHandle {
  /**
   * A descriptor open for reading and writing on the temporary file, at offset 0. It may
   * be given to a child process as its stdout and stderr (`> file 2>&1`). Never close it
   * yourself: {@link SpillFileSinkHandle.close} does.
   */
  readonly fd: number;
  /**
   * Writes every byte of `bytes` at `position` (a positioned write: the descriptor's
   * offset does not move).
   *
   * @throws SpillError `SPILL_NO_SPACE` when the volume is full, `SPILL_STORAGE_FAILED`
   * for any other write failure, or after `publish`. What was written before stays
   * readable.
   */
  write(bytes: Uint8Array, position: number): Promise<void>;
  /** Reads up to `length` bytes at `position` into `buffer` at `offset`; 0 at the end. Works after `publish` too. */
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>;
  /** The file's current size in bytes. */
  size(): Promise<number>;
  /** Cuts the file to `length` bytes (to drop what was written past a limit). Refused after `publish`. */
  truncate(length: number): Promise<void>;
  /**
   * Bytes still free for this user on the volume that holds the file, or `undefined` when
   * the platform cannot tell.
   */
  freeBytes(): Promise<number | undefined>;
  /**
   * Publishes the file's current content as the artifact, with the same checks as any
   * save. `bytes` in the result is the file's exact size, and the backend's reader reads
   * the locator back byte for byte. The descriptor stays open for `read` until `close`.
   *
   * @throws SpillError as a save does (`SPILL_ABORTED` for a fired signal); the temporary
   * file is then removed and nothing is published.
   */
  publish(options?: SpillCallOptions): Promise<SpillRef>;
  /**
   * Ends the handle: closes the descriptor and, unless it was published, removes the
   * temporary file, so that nothing is left behind. Idempotent; never rejects.
   */
  close(): Promise<void>;
}

/**
 * The capability behind byte-exact, zero-copy storage of command output. Only a backend
 * that keeps artifacts as files on this host can offer it.
 */
export interface SpillFileSink {
  /**
   * Creates the private temporary file for one artifact, with every check a save makes,
   * and hands back its descriptor.
   *
   * @throws SpillError as a save does (`SPILL_INVALID_INPUT`, `SPILL_UNSAFE_ROOT`,
   * `SPILL_STORAGE_FAILED`, `SPILL_NO_SPACE`, `SPILL_ABORTED`); nothing is left behind.
   */
  open(input: OpenFileSinkSpill, options?: SpillCallOptions): Promise<SpillFileSinkHandle>;
}

/**
 * A backend that may offer a {@link SpillFileSink}, under the well-known member
 * `fileSink`. A backend that offers one declares it (`@spillway/local`'s `LocalBackend`
 * does, as a required member); a caller holding a plain `SpillBackend` asks with
 * {@link fileSinkOf}.
 */
export interface NodeSpillBackend extends SpillBackend {
  /** The file sink, when the backend stores files on this host. */
  readonly fileSink?: SpillFileSink;
}

/**
 * The backend's file sink, or `undefined` when it offers none: its `fileSink` member when
 * that is an object with an `open` method. The one way callers ask, so that a wrapper (a
 * test double, a usage recorder) that drops or replaces the member is honoured.
 *
 * @example
 * const sink = fileSinkOf(backend);
 * if (sink === undefined) return backend.saveTextStream(request);
 * const handle = await sink.open(request);
 */
export function fileSinkOf(backend: SpillBackend): SpillFileSink | undefined {
  const sink: unknown = (backend as NodeSpillBackend).fileSink;
  if (typeof sink !== 'object' || sink === null) return undefined;
  return typeof (sink as { open?: unknown }).open === 'function' ? (sink as SpillFileSink) : undefined;
}
