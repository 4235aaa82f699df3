import { isUtf8 } from 'node:buffer';
import type { ChildProcess } from 'node:child_process';
import type { SpillFileSinkHandle } from '@spillway/core/file-sink';
import { runChild, stopRunning, type ChildOutcome } from './child.js';

/** How often the direct route measures the file against the limit. */
const WATCH_INTERVAL_MS = 20;
/** The size of one read when output is read back to be printed. */
const COPY_CHUNK_BYTES = 1024 * 1024;

/** What reading stored output back needs: a sink, or anything that reads like one. */
export type StoredReader = Pick<SpillFileSinkHandle, 'read'>;

/** What {@link runIntoSink} needs besides the command. */
export interface SinkRunOptions {
  /** The open sink the output goes into. */
  readonly sink: SpillFileSinkHandle;
  /** The most bytes to keep; the command is stopped once its output goes past it. */
  readonly maxStoredBytes: number;
  /**
   * `true`: the child writes straight into the sink's descriptor. `false`: its output
   * comes through a pipe and is written here, so that a failing store can fall back to
   * printing.
   */
  readonly direct: boolean;
  /** Prints bytes on stdout. */
  readonly print: (bytes: Uint8Array) => Promise<void>;
  /** Says, once, that the store failed and the output is printed instead. */
  readonly onStoreFailed: (error: unknown) => Promise<void>;
  /** Called once the child has started. */
  readonly onSpawn?: (child: ChildProcess) => void;
  /** Direct route only: called with the file's size each time it is measured while the command runs. */
  readonly onSize?: (size: number) => void;
}

/** How a {@link runIntoSink} ended. */
export interface SinkRun {
  /** How the command ended. */
  readonly outcome: ChildOutcome;
  /** Bytes in the sink at the end (never more than the limit). */
  readonly storedBytes: number;
  /** Bytes the command wrote past the limit, which were not kept. */
  readonly droppedBytes: number;
  /** Whether the command was stopped because its output went past the limit. */
  readonly stopped: boolean;
  /** Set when the store failed midway: the whole output was printed instead. */
  readonly failure?: { readonly error: unknown };
}

/**
 * Runs a command with its merged stdout and stderr going into `sink`, byte for byte.
 *
 * Direct route: the descriptor is the child's stdout and stderr, so the kernel writes the
 * output straight into the file, in the order written, as `> file 2>&1` does. A timer
 * measures the file; once it is larger than the limit, the command is sent SIGTERM and
 * the file is cut back to the limit when it has ended.
 *
 * Piped route: the output arrives on pipes and is written to the sink here. Past the
 * limit the rest is dropped and the command is stopped. If a write fails (a full disk),
 * everything stored so far is read back and printed, and the rest of the output is
 * printed as it arrives, in bounded memory.
 */
export async function runIntoSink(file: string, args: readonly string[], options: SinkRunOptions): Promise<SinkRun> {
  const { sink, maxStoredBytes: limit } = options;
  let child: ChildProcess | undefined;
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    stopRunning(child);
  };
  const onSpawn = (c: ChildProcess): void => {
    child = c;
    options.onSpawn?.(c);
  };

  if (options.direct) {
    let measuring = false;
    const timer = setInterval(() => {
      if (measuring || stopped) return;
      measuring = true;
      sink.size().then(
        (size) => {
          measuring = false;
          options.onSize?.(size);
          if (size > limit) stop();
        },
        () => {
          measuring = false;
        },
      );
    }, WATCH_INTERVAL_MS);
    let outcome: ChildOutcome;
    try {
      outcome = await runChild(file, args, { outputFd: sink.fd, onSpawn });
    } finally {
      clearInterval(timer);
    }
    const size = await sink.size();
    if (size <= limit) return { outcome, storedBytes: size, droppedBytes: 0, stopped };
    await sink.truncate(limit);
    return { outcome, storedBytes: limit, droppedBytes: size - limit, stopped: true };
  }

  const writer = cappedSinkWriter(sink, limit, { stop, print: options.print, onStoreFailed: options.onStoreFailed });
  const outcome = await runChild(file, args, { onData: (chunk) => writer.write(chunk), onSpawn });
  const { failure } = writer;
  return failure === undefined
    ? { outcome, storedBytes: writer.position, droppedBytes: writer.dropped, stopped }
    : { outcome, storedBytes: 0, droppedBytes: 0, stopped, failure };
}

/** What {@link cappedSinkWriter} has done so far. */
export interface CappedSinkWriter {
  /** Stores a chunk of output, or prints it once storing has failed. */
  write(chunk: Uint8Array): Promise<void>;
  /** Bytes stored. */
  readonly position: number;
  /** Bytes past the limit, dropped. */
  readonly dropped: number;
  /** Why storing stopped, once a write failed. */
  readonly failure: { readonly error: unknown } | undefined;
}

/**
 * Writes output into `sink` up to `limit` bytes: past it the rest is dropped and `stop`
 * is called; when a write fails, what is stored is printed, then the chunk and the rest
 * as they come, so no byte is lost.
 */
export function cappedSinkWriter(
  sink: SpillFileSinkHandle,
  limit: number,
  hooks: {
    readonly stop: () => void;
    readonly print: (bytes: Uint8Array) => Promise<void>;
    readonly onStoreFailed: (error: unknown) => Promise<void>;
    /** Sees each stored piece while its write is under way (the preview's scan). */
    readonly onKept?: (bytes: Uint8Array) => void;
  },
): CappedSinkWriter {
  let position = 0;
  let dropped = 0;
  let failure: { readonly error: unknown } | undefined;
  return {
    get position() {
      return position;
    },
    get dropped() {
      return dropped;
    },
    get failure() {
      return failure;
    },
    async write(chunk) {
      if (failure !== undefined) return hooks.print(chunk);
      const room = limit - position;
      const keep = chunk.length <= room ? chunk : chunk.subarray(0, Math.max(room, 0));
      if (keep.length < chunk.length) {
        dropped += chunk.length - keep.length;
        hooks.stop();
      }
      if (keep.length === 0) return;
      try {
        const writing = sink.write(keep, position);
        hooks.onKept?.(keep);
        await writing;
        position += keep.length;
      } catch (error) {
        failure = { error };
        await hooks.onStoreFailed(error);
        await copyOut(sink, position, hooks.print);
        await hooks.print(chunk);
      }
    },
  };
}

/** Prints the first `length` bytes of the sink, a chunk at a time. */
export async function copyOut(sink: StoredReader, length: number, print: (bytes: Uint8Array) => Promise<void>): Promise<void> {
  const buffer = Buffer.allocUnsafe(Math.min(COPY_CHUNK_BYTES, Math.max(length, 1)));
  let position = 0;
  while (position < length) {
    const n = await sink.read(buffer, 0, Math.min(buffer.length, length - position), position);
    if (n <= 0) break;
    // The buffer is reused: hand out a copy the stream may keep.
    await print(Buffer.from(buffer.subarray(0, n)));
    position += n;
  }
}

/** Reads `length` bytes at `position` from the sink (fewer at its end). */
export async function readRange(sink: StoredReader, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const n = await sink.read(buffer, filled, length - filled, position + filled);
    if (n <= 0) break;
    filled += n;
  }
  return buffer.subarray(0, filled);
}

/** Lead bytes of multi-byte UTF-8 sequences, and how many bytes each sequence has. */
function sequenceLength(byte: number): number {
  if (byte >= 0xf0 && byte <= 0xf4) return 4;
  if (byte >= 0xe0) return byte <= 0xef ? 3 : 0;
  if (byte >= 0xc2) return 2;
  return byte < 0x80 ? 1 : 0;
}

/**
 * Whether `bytes`, a window cut out of a longer output, is UTF-8 text: valid UTF-8 and
 * no NUL byte (a NUL is valid UTF-8 but marks binary data). A window that starts inside
 * the output may begin with up to three continuation bytes, and one that ends inside it
 * may end with an incomplete sequence; those edges are not held against it.
 */
export function looksUtf8(bytes: Uint8Array, startsAtStart: boolean, endsAtEnd: boolean): boolean {
  let start = 0;
  let end = bytes.length;
  if (!startsAtStart) {
    while (start < Math.min(3, end) && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
  }
  if (!endsAtEnd) {
    // Drop a final sequence that is cut short: find the last lead byte within 3 bytes.
    for (let back = 1; back <= 3 && end - back >= start; back++) {
      const byte = bytes[end - back] ?? 0;
      if ((byte & 0xc0) === 0x80) continue;
      if (sequenceLength(byte) > back) end -= back;
      break;
    }
  }
  const window = bytes.subarray(start, end);
  return window.indexOf(0) === -1 && isUtf8(window);
}
