/**
 * A hand-over point between a producer (the command's output) and one consumer (a
 * backend's `saveBytesStream`), with backpressure: `push` resolves once the consumer has
 * taken the chunk, so at most one chunk waits here and a slow store slows the command
 * instead of filling memory. Once the consumer stops (it failed, or finished), `push`
 * resolves at once and drops what it is given.
 */
export class ByteChannel implements AsyncIterable<Uint8Array> {
  #queue: Uint8Array[] = [];
  #closed = false;
  #stopped = false;
  #wake: (() => void) | undefined;
  #taken: (() => void) | undefined;

  /** Whether the consumer has stopped taking chunks. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Hands `chunk` over; resolves when the consumer has taken it, or has stopped. */
  async push(chunk: Uint8Array): Promise<void> {
    if (this.#stopped || this.#closed) return;
    this.#queue.push(chunk);
    this.#signal();
    while (this.#queue.length > 0 && !this.stopped) {
      await new Promise<void>((resolve) => {
        this.#taken = resolve;
      });
    }
  }

  /** Ends the stream: the consumer sees its end once it has taken every chunk. */
  close(): void {
    this.#closed = true;
    this.#signal();
  }

  /** Tells the producer that the consumer is gone (its save failed). */
  stop(): void {
    this.#stopped = true;
    this.#queue = [];
    this.#release();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array, void, undefined> {
    try {
      for (;;) {
        const chunk = this.#queue.shift();
        if (chunk !== undefined) {
          this.#release();
          yield chunk;
          continue;
        }
        if (this.#closed) return;
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
    } finally {
      this.stop();
    }
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #release(): void {
    const taken = this.#taken;
    this.#taken = undefined;
    taken?.();
  }
}
