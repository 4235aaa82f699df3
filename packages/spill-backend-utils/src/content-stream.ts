import { SpillError, isSpillError, raceAbort, throwIfAborted } from '@spillway/core';

/** The content of a streamed save, as a caller without type checking may pass it. */
export type ContentChunks = Iterable<unknown> | AsyncIterable<unknown>;

/** How a sync stream is read: the event loop gets a turn this often, so that an abort can land. */
const SYNC_YIELD_MS = 10;

/**
 * The `SPILL_STREAM_FAILED` error for a content stream that threw (or whose iterator
 * broke) before it ended; `cause` is what it threw.
 */
export function streamFailed(cause: unknown): SpillError {
  return new SpillError('SPILL_STREAM_FAILED', 'The content stream threw before it ended, so nothing was stored; retry once the source is fixed.', { cause });
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object';
  return `a ${typeof value}`;
}

/** The `SPILL_STREAM_FAILED` error for a chunk that is not a string. */
export function notAString(value: unknown): SpillError {
  return new SpillError(
    'SPILL_STREAM_FAILED',
    `The content stream yielded ${describeValue(value)} where a string was expected, so nothing was stored; yield strings only.`,
    { cause: new TypeError(`Stream chunk is ${describeValue(value)}.`) },
  );
}

/**
 * Pulls the string chunks of a save's `content`, one at a time. What the producer throws
 * becomes `SPILL_STREAM_FAILED` (with the throw as `cause`), and so does a chunk that is
 * not a string; an abort of `signal` while waiting for a chunk is `SPILL_ABORTED`. After a
 * failure, call {@link stop} so that the producer is told to stop.
 */
export class ContentStream {
  readonly #iterator: Iterator<unknown> | AsyncIterator<unknown>;
  readonly #async: boolean;
  #finished = false;

  /** @throws SpillError `SPILL_STREAM_FAILED` when `content` does not give an iterator. */
  constructor(content: ContentChunks) {
    try {
      this.#async = Symbol.asyncIterator in content;
      this.#iterator = this.#async
        ? (content as AsyncIterable<unknown>)[Symbol.asyncIterator]()
        : (content as Iterable<unknown>)[Symbol.iterator]();
    } catch (cause) {
      throw streamFailed(cause);
    }
  }

  /** Whether the content is a sync iterable (its chunks can be pulled without waiting). */
  get isSync(): boolean {
    return !this.#async;
  }

  /** The next chunk, or `undefined` at the end. */
  async next(signal: AbortSignal | undefined): Promise<string | undefined> {
    if (!this.#async) return this.nextSync();
    let step: unknown;
    try {
      step = await raceAbort(Promise.resolve((this.#iterator as AsyncIterator<unknown>).next()), signal, 'The save');
    } catch (error) {
      if (isSpillError(error, 'SPILL_ABORTED')) throw error;
      throw streamFailed(error);
    }
    return this.#value(step);
  }

  /** The next chunk of a sync iterable, without waiting; only when {@link isSync}. */
  nextSync(): string | undefined {
    let step: unknown;
    try {
      step = (this.#iterator as Iterator<unknown>).next();
    } catch (error) {
      throw streamFailed(error);
    }
    return this.#value(step);
  }

  #value(step: unknown): string | undefined {
    if (typeof step !== 'object' || step === null) throw streamFailed(new TypeError('The stream iterator returned a non-object result.'));
    const { done, value } = step as { done?: unknown; value?: unknown };
    if (done === true) {
      this.#finished = true;
      return undefined;
    }
    if (typeof value !== 'string') throw notAString(value);
    return value;
  }

  /** Tells an unfinished producer to stop, without waiting on it (it may be what hangs). */
  stop(): void {
    if (this.#finished) return;
    this.#finished = true;
    try {
      const result = this.#iterator.return?.();
      if (result instanceof Promise) result.catch(() => undefined);
    } catch {
      // a throwing return() changes nothing: the save already failed
    }
  }
}

/**
 * Feeds every string chunk of `content` to `sink`, in order, and checks `signal` after each.
 * A sync iterable is read without a wait per chunk (the event loop still gets a turn every
 * few milliseconds, so an abort can land); `sink` may return a promise, which is awaited.
 * Errors are those of {@link ContentStream}, or what `sink` throws; on any of them the
 * producer is told to stop.
 *
 * @example
 * const encoder = new Utf8ChunkEncoder();
 * await forEachChunk(input.content, signal, (chunk) => file.write(encoder.take(chunk)));
 */
export async function forEachChunk(
  content: ContentChunks,
  signal: AbortSignal | undefined,
  sink: (chunk: string) => void | Promise<void>,
): Promise<void> {
  const stream = new ContentStream(content);
  let lastYield = Date.now();
  try {
    for (;;) {
      const chunk = stream.isSync ? stream.nextSync() : await stream.next(signal);
      if (chunk === undefined) return;
      const pending = sink(chunk);
      if (pending !== undefined) await pending;
      if (stream.isSync && Date.now() - lastYield >= SYNC_YIELD_MS) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        lastYield = Date.now();
      }
      throwIfAborted(signal, 'The save');
    }
  } catch (error) {
    stream.stop();
    throw error;
  }
}
