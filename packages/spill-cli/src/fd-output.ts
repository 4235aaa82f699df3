import { EventEmitter } from 'node:events';
import { fstatSync, writeSync } from 'node:fs';
import type { OutputStream } from './context.js';

/** What {@link FdOutput} needs of the stream it falls back to: `process.stdout` or `process.stderr`. */
export type FallbackStream = OutputStream & NodeJS.EventEmitter;

/** The parts of `node:fs` that {@link FdOutput} uses, injectable for tests. */
export interface FdCalls {
  /** `fs.fstatSync`. */
  readonly fstat: (fd: number) => { isFIFO(): boolean; isSocket(): boolean; isFile(): boolean };
  /** `fs.writeSync` of part of a buffer; returns the bytes written. */
  readonly write: (fd: number, buffer: Uint8Array, offset: number, length: number) => number;
  /** What a broken pipe does: ends the process with its exit code so far. */
  readonly brokenPipe: () => never;
}

const NODE_FS: FdCalls = {
  fstat: (fd) => fstatSync(fd),
  write: (fd, buffer, offset, length) => writeSync(fd, buffer, offset, length),
  brokenPipe: () => process.exit(process.exitCode ?? 0),
};

/**
 * Stdout or stderr written with `fs.writeSync` on its descriptor, so that a process that only
 * writes a few lines never makes Node build the stream (its `stream` and `net` modules cost
 * a few milliseconds to load). Only for a pipe, a socket or a file, to which Node's own
 * stream writes synchronously too, in the same order: anything else (a terminal, whose
 * `isTTY` only the stream knows, `/dev/null`, a descriptor that fails `fstat`) goes to the
 * stream from the start. So does everything from the first write that fails otherwise than
 * with `EPIPE`, such as `EAGAIN` on a non-blocking pipe: the stream then waits for it to
 * drain, as it always did. `EPIPE`, a reader gone away, ends the process with its exit code
 * so far, as the stream's handler does (see broken-pipe.ts). Writing never waits, so
 * `write` returns true until it falls back.
 *
 * Only what the CLI calls on an {@link OutputStream} is implemented: `write`, `isTTY`, `fd`,
 * and the `drain`, `error` and `close` events of the stream once there is one.
 */
export class FdOutput extends EventEmitter {
  /** The descriptor written to. */
  readonly fd: number;
  private stream: FallbackStream | undefined;
  private readonly direct: boolean;

  /**
   * @param fd - 1 or 2
   * @param fallback - the stream for that descriptor, got only when needed
   * @param calls - `node:fs`, unless a test says otherwise
   */
  constructor(
    fd: number,
    private readonly fallback: () => FallbackStream,
    private readonly calls: FdCalls = NODE_FS,
  ) {
    super();
    this.fd = fd;
    let direct = false;
    try {
      const stat = calls.fstat(fd);
      direct = stat.isFIFO() || stat.isSocket() || stat.isFile();
    } catch {
      // A closed or odd descriptor: the stream deals with it as it always did.
    }
    this.direct = direct;
  }

  /** Whether the descriptor is a terminal: never for one written directly. */
  get isTTY(): boolean {
    return this.direct ? false : this.toStream().isTTY === true;
  }

  /** Whether writes still go to the descriptor directly (false once fallen back to the stream). */
  get writesDirectly(): boolean {
    return this.direct && this.stream === undefined;
  }

  /** Writes `chunk` (a string as UTF-8); false only when the stream it fell back to is full. */
  write(chunk: string | Uint8Array, callback?: (error?: Error | null) => void): boolean {
    if (!this.writesDirectly) return callback === undefined ? this.toStream().write(chunk) : this.toStream().write(chunk, callback);
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let done = 0;
    while (done < bytes.length) {
      try {
        done += this.calls.write(this.fd, bytes, done, bytes.length - done);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EPIPE') this.calls.brokenPipe();
        // The rest, and all that follows, through the stream.
        const rest = bytes.subarray(done);
        return callback === undefined ? this.toStream().write(rest) : this.toStream().write(rest, callback);
      }
    }
    if (callback !== undefined) process.nextTick(callback);
    return true;
  }

  private toStream(): FallbackStream {
    if (this.stream === undefined) {
      const stream = this.fallback();
      this.stream = stream;
      stream.on('drain', () => this.emit('drain'));
      stream.on('close', () => this.emit('close'));
      // Only to a listener of this one's own (writeAll's wait); the stream's own handler
      // (exitOnBrokenPipe) acts on it either way.
      stream.on('error', (error: Error) => {
        if (this.listenerCount('error') > 0) this.emit('error', error);
      });
    }
    return this.stream;
  }
}

/** `fd` as an {@link OutputStream} written by {@link FdOutput}. */
export function fdOutput(fd: number, fallback: () => FallbackStream, calls?: FdCalls): OutputStream {
  // It implements the part of a writable that the CLI uses (see FdOutput).
  return new FdOutput(fd, fallback, calls) as unknown as OutputStream;
}
